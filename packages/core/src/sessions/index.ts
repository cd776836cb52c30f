/** Sessions: runs kept in a store between requests, claimed before each turn; the store contract. */

export type {
  ExtendRequest,
  ForkAt,
  ForkRequest,
  GetOptions,
  HistoryPoint,
  PlayOptions,
  PointReason,
  RunHead,
  SendOptions,
  SessionOptions,
  SessionResult,
  SessionStart,
  Sessions,
  SessionsConfig,
  StopOutcome,
  StopRequest,
  StopResult,
  SweepOptions,
  SweepResult,
  TurnClaim,
} from './api.js';
export type { InboxFilter, InboxItem, InboxPage } from './inbox.js';
export type { AnswerLinkOptions, LinkResponse } from './links.js';
export { type MemoryStoreOptions, memoryStore } from './memory-store.js';
export type { OnInteraction } from './notify.js';
export { createSessions, TAKEOVER_SEQ_GAP } from './sessions.js';
export {
  checkLeaseMs,
  type GetPartsOptions,
  type KeepHistory,
  leaseHeldError,
  matchesPending,
  notInPartsError,
  type PartsWrite,
  type PendingFilter,
  type PendingIndexEntry,
  type PendingItem,
  type PendingPage,
  type PutOptions,
  pendingKey,
  pointsToKeep,
  type QueuedMessage,
  type RenewOptions,
  type RenewResult,
  type SnapshotStore,
  type StopMark,
  type StoredHead,
  type StoredLease,
  type StoredParts,
  type StoredPoint,
  type StoredSnapshot,
  staleWriteError,
  stopMarkOf,
  type WriteResult,
} from './store.js';
