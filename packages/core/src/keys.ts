/**
 * The keys under which option values carry their code (DESIGN §18: an option a program does not
 * use bundles none of its code). `Symbol.for`, so that every copy of the package shares them.
 */

/** Where a `history` value made by `compaction({...})` carries the compaction. */
export const COMPACT: unique symbol = Symbol.for('turnkit.history.compact');

/** Where a `telemetry` value made by `defineTelemetry` (or `otelTelemetry`) carries TurnKit's tracing. */
export const TRACING: unique symbol = Symbol.for('turnkit.telemetry.tracing');
