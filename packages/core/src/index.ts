/** @turnkit/core — the public API. */
export * from './errors.js';
export * from './types.js';
export { memoryStore, staleWriteError } from './stores.js';
export type { SnapshotStore, StoredSnapshot, PutOptions } from './stores.js';
export { toolErrorResult } from './results.js';
export type { ToolErrorCode } from './results.js';
