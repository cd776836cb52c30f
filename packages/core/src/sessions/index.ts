/** Sessions: runs kept in a store between requests, claimed before each turn; the store contract. */

export type {
  PlayOptions,
  SessionOptions,
  SessionResult,
  SessionStart,
  Sessions,
  SessionsConfig,
  SweepOptions,
  SweepResult,
  TurnClaim,
} from './api.js';
export { type MemoryStoreOptions, memoryStore } from './memory-store.js';
export { createSessions, TAKEOVER_SEQ_GAP } from './sessions.js';
export {
  checkLeaseMs,
  leaseHeldError,
  notInPartsError,
  type PartsWrite,
  type PutOptions,
  type RenewOptions,
  type SnapshotStore,
  type StoredLease,
  type StoredParts,
  type StoredSnapshot,
  staleWriteError,
} from './store.js';
