/**
 * Where sessions keep snapshots between requests. A store is a compare-and-set map from run id to
 * the latest snapshot string; `memoryStore` is the in-process one (tests, single long-lived
 * processes). File, Redis and Postgres stores live in `@turnkit/adapters`.
 */
import { ConflictError } from './errors.js';

/** A stored snapshot and its version (1 for the first write, +1 per write). */
export interface StoredSnapshot {
  snapshot: string;
  version: number;
}

/** Options of {@link SnapshotStore.put}. */
export interface PutOptions {
  /** The version read before writing, or null to create. A mismatch throws `ConflictError`. */
  expectedVersion: number | null;
  /** When the run's earliest pending interaction expires (ISO), for stores that can list them. */
  expiresAt?: string | null;
}

/** Compare-and-set storage of snapshot strings, keyed by run id. */
export interface SnapshotStore {
  get(runId: string): Promise<StoredSnapshot | null>;
  /** Writes when the stored version equals `expectedVersion` (null: absent); else throws `ConflictError`. */
  put(runId: string, snapshot: string, opts: PutOptions): Promise<{ version: number }>;
  delete(runId: string): Promise<void>;
  /** Run ids whose stored `expiresAt` is at or before `now`, for an expiry sweeper. Optional. */
  listExpired?(now: Date): Promise<string[]>;
}

/** Builds the `ConflictError` every store throws on a stale write, so the message is the same everywhere. */
export function staleWriteError(
  runId: string,
  expected: number | null,
  actual: number | null,
): ConflictError {
  const want = expected === null ? 'no stored snapshot' : `version ${expected}`;
  const have = actual === null ? 'none is stored' : `version ${actual} is stored`;
  return new ConflictError(
    `Run ${runId} was changed by another writer: expected ${want}, but ${have}. Load it again and retry.`,
  );
}

/** An in-memory {@link SnapshotStore}: compare-and-set in one process, gone when the process ends. */
export function memoryStore(): SnapshotStore {
  const rows = new Map<string, StoredSnapshot & { expiresAt: string | null }>();
  return {
    async get(runId) {
      const row = rows.get(runId);
      return row ? { snapshot: row.snapshot, version: row.version } : null;
    },
    async put(runId, snapshot, opts) {
      const current = rows.get(runId)?.version ?? null;
      if (current !== opts.expectedVersion) throw staleWriteError(runId, opts.expectedVersion, current);
      const version = (current ?? 0) + 1;
      rows.set(runId, { snapshot, version, expiresAt: opts.expiresAt ?? null });
      return { version };
    },
    async delete(runId) {
      rows.delete(runId);
    },
    async listExpired(now) {
      const limit = now.getTime();
      const ids: string[] = [];
      for (const [runId, row] of rows) {
        if (row.expiresAt !== null && Date.parse(row.expiresAt) <= limit) ids.push(runId);
      }
      return ids;
    },
  };
}
