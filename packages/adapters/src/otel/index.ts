/**
 * @turnkit/adapters/otel — TurnKit's turns, model calls and tools as OpenTelemetry spans with the
 * GenAI semantic conventions, a resumed turn linked to the paused one across processes (DESIGN §15).
 * Needs `@opentelemetry/api` 1.x (an optional peer); the SDK and exporter are the app's choice.
 */
export type { OtelTelemetryOptions } from './telemetry.js';
export { otelTelemetry } from './telemetry.js';
