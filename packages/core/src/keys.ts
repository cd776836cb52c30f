/**
 * The keys under which option values carry their code (DESIGN §18: an option a program does not
 * use bundles none of its code). `Symbol.for`, so that every copy of the package shares them.
 */

/** Where a `history` value made by `compaction({...})` carries the compaction. */
export const COMPACT: unique symbol = Symbol.for('turnkit.history.compact');

/** Where a `telemetry` value made by `defineTelemetry` (or `otelTelemetry`) carries TurnKit's tracing. */
export const TRACING: unique symbol = Symbol.for('turnkit.telemetry.tracing');

/**
 * Where a hook made by `defineHook` (or `toolPolicy`) carries the hook machinery: the four points,
 * their chain, and deciding reviews. The loop reaches it through the run's hooks (hooks/runtime.ts).
 */
export const HOOKS: unique symbol = Symbol.for('turnkit.hooks.runtime');

/**
 * Where a function tool made by `defineTool` (or `shellAskTool`) carries the code that runs it
 * (interpreter/tool-code.ts): its `execute` and `resume` with their `ctx`, timeout and context
 * check, its `needsApproval` function, and what turns its `ctx.ask` into an interaction. The step
 * reaches it through the tool, so a program without function tools bundles none of it.
 */
export const TOOL_CODE: unique symbol = Symbol.for('turnkit.tool.code');

/** Whether `value` was made by the function that puts its code under `key`. */
export function carries(value: unknown, key: symbol): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key);
}

/** `value`, frozen, with `code` under `key`: not enumerable, so a spread copy is a plain object again. */
export function withCode<T extends object>(value: T, key: symbol, code: unknown): T {
  return Object.freeze(Object.defineProperty(value, key, { value: code }));
}
