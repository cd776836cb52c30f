/**
 * `@turnkit/core/store` — the kit for writing a {@link SnapshotStore} of your own (DESIGN §12, §17,
 * §22), kept apart from the user API of `@turnkit/core` as `@ai-sdk/provider` is kept apart from
 * `ai`: what a store implementation needs and an application never calls.
 *
 * - The contract's types: what each method takes and returns (`PutOptions`, `StoredSnapshot`,
 *   `StoredParts`, `PartsWrite`, …).
 * - The errors every store throws with the same words (`staleWriteError`, `leaseHeldError`,
 *   `notInPartsError`), and the checks of its options (`checkLeaseMs`, `pointsToKeep`).
 * - Row layout 2: joining appended log texts (`joinLog`), cutting a long one into the chunks its
 *   write allows (`logChunks`, `LOG_CHUNK_CHARS`), the snapshot string of a stored row
 *   (`assembleSnapshot`).
 * - The inbox index's order and filter (`pendingKey`, `matchesPending`), and the stop mark
 *   of a stored reason (`stopMarkOf`).
 * - `TAKEOVER_SEQ_GAP`: how far a taken-over turn skips the event sequence, for a store or an event
 *   hub that keeps events by `seq`.
 *
 * `SnapshotStore` and `KeepHistory` are exported here and from `@turnkit/core` both: an application
 * names `SnapshotStore` to hand a store to `createSessions` or to wrap one, and passes
 * `keepHistory` to the stores it configures, without writing a store. The error classes
 * (`ConflictError`, `SnapshotError`, `TurnkitError`) stay in `@turnkit/core` alone: applications
 * catch them, and a store that throws them imports them from there.
 *
 * @example
 * ```ts
 * import type { SnapshotStore } from '@turnkit/core';
 * import { type PutOptions, staleWriteError } from '@turnkit/core/store';
 * ```
 *
 * @packageDocumentation
 */

export type {
  GetPartsOptions,
  KeepHistory,
  PartsWrite,
  PendingFilter,
  PendingIndexEntry,
  PendingItem,
  PendingPage,
  PutOptions,
  QueuedMessage,
  RenewOptions,
  RenewResult,
  SnapshotStore,
  StopMark,
  StoredHead,
  StoredLease,
  StoredParts,
  StoredPoint,
  StoredSnapshot,
  WriteResult,
} from './sessions/index.js';
export {
  checkLeaseMs,
  leaseHeldError,
  matchesPending,
  notInPartsError,
  pendingKey,
  pointsToKeep,
  staleWriteError,
  stopMarkOf,
  TAKEOVER_SEQ_GAP,
} from './sessions/index.js';
export type { LogChunk, SnapshotParts } from './snapshot/index.js';
export { assembleSnapshot, joinLog, LOG_CHUNK_CHARS, logChunks } from './snapshot/index.js';
