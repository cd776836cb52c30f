/**
 * The `telemetry` option (DESIGN §15) is a value that carries TurnKit's tracing code: made by
 * `otelTelemetry()` (`@turnkit/adapters/otel`) or by `defineTelemetry(tracer)` for a tracer of your
 * own. An agent without telemetry bundles none of that code (DESIGN §18's size budget); a bare
 * `{ startTurn }` object is refused, saying how to wrap it.
 */
import { TurnkitError } from '../errors.js';
import { carries, TRACING } from '../keys.js';

/** Refuses a `telemetry` option not made by `defineTelemetry` or `otelTelemetry`, saying how to make one. */
export function checkTelemetry(where: string, telemetry: unknown): void {
  if (carries(telemetry, TRACING)) return;
  throw new TurnkitError(
    'CONFIG_INVALID',
    `${where}: telemetry must be made by otelTelemetry() from @turnkit/adapters/otel, or by defineTelemetry({ startTurn }) from @turnkit/core for a tracer of your own (wrap a plain object in it). The value carries TurnKit's tracing code, so an agent without telemetry bundles none of it.`,
  );
}
