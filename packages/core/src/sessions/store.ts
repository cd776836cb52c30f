/**
 * Where sessions keep snapshots between requests: the store contract (DESIGN §12). A store is a
 * compare-and-set map from run id to the latest snapshot string, with the lease of the worker
 * playing the run kept beside it and judged by the store alone, atomically, on its own clock.
 * A store may also keep runs in row layout 2 (DESIGN §17: `getParts` / `putParts`), so that each
 * write costs the new messages rather than the history.
 * `memoryStore` is the in-process one; file, Redis and Postgres stores live in `@turnkit/adapters`.
 */
import { ConflictError, TurnkitError } from '../errors.js';
import type { SnapshotParts } from '../snapshot/index.js';

/** The lease beside a stored snapshot: who holds the run, and whether the store's clock says it still does. */
export interface StoredLease {
  owner: string;
  /** Judged by the store's clock at the time of the read; a lease that is not live can be taken over. */
  live: boolean;
}

/** A stored snapshot, its version (1 for the first write, +1 per write) and its lease. */
export interface StoredSnapshot {
  snapshot: string;
  version: number;
  /** Null when no worker holds the run (or the last write released it). */
  lease: StoredLease | null;
  /**
   * The store's clock at the read, in epoch ms (the clock that judges `lease.live`), optional.
   * Sessions judge question expiry by it (unless the caller passed `TurnOptions.now`), so workers
   * whose clocks disagree agree on what expired. A store without a clock of its own leaves it out.
   */
  now?: number;
  /** Messages queued on the run (DESIGN §30, {@link SnapshotStore.queueMessage}), oldest first; absent when none. */
  queued?: QueuedMessage[];
}

/**
 * A user message queued on a run while a turn plays or its asks wait (DESIGN §30), kept beside the
 * run (not in its versioned content) until a write that delivered it removes it (`PutOptions.dequeue`).
 */
export interface QueuedMessage {
  /** Its idempotency key: queued once per id, delivered once. */
  id: string;
  /** The messages to add, as the JSON text of a `ChatMessage[]`. */
  messages: string;
}

/** What a write returns: the version it created, and optionally the store's clock then (epoch ms, see {@link StoredSnapshot.now}). */
export interface WriteResult {
  version: number;
  now?: number;
  /** Messages still queued on the run after this write (DESIGN §30): absent when none. */
  queued?: QueuedMessage[];
}

/** Options of {@link SnapshotStore.put}. */
export interface PutOptions {
  /** The version read before writing, or null to create. A mismatch throws `ConflictError`. */
  expectedVersion: number | null;
  /**
   * Who writes, and for how long the run stays theirs afterwards. A write is refused
   * (`ConflictError`) while another owner's lease is live, whatever the version. `ms: 0` writes as
   * `owner` and releases the lease; null or absent writes as nobody (refused under any live lease).
   */
  lease?: { owner: string; ms: number } | null;
  /** When the run's earliest pending interaction expires (ISO), for {@link SnapshotStore.listExpired}. */
  expiresAt?: string | null;
  /**
   * The run's pending interactions as the inbox lists them (DESIGN §20), for
   * {@link SnapshotStore.listPending}: they replace the run's entries in the index, in the same
   * atomic step as the write. Absent or empty: the run has none (answered, expired, finished).
   */
  pending?: PendingIndexEntry[] | null;
  /**
   * Ids of queued messages (DESIGN §30) this write delivered: removed from the run's queue in the
   * same atomic step as the write, and only if it succeeds.
   */
  dequeue?: string[];
}

/** One pending interaction of a run as the inbox index keeps it (DESIGN §20). */
export interface PendingIndexEntry {
  /** The interaction id. */
  id: string;
  /** `question`, `approval`, `input`, or a kind added later (read as an open string). */
  kind: string;
  /** Agent names from the top agent down to the one that asked. */
  agentPath: string[];
  /** A short text for a list: the first question, or the tool name and "approval". */
  summary: string;
  /** When it was asked (ISO): the inbox is ordered by it, oldest first. */
  askedAt: string;
  expiresAt?: string;
  /** Who may answer it, when the asker named them. */
  assignees?: string[];
  /** The principal the run is bound to (who started it), when it has one. */
  principal?: string;
}

/** A {@link PendingIndexEntry} with the run it belongs to. */
export interface PendingItem extends PendingIndexEntry {
  runId: string;
}

/** Which entries {@link SnapshotStore.listPending} returns; every field given must match. */
export interface PendingFilter {
  /** Entries whose `assignees` include this principal (an entry without assignees has none). */
  assignee?: string;
  /** Entries of runs bound to this principal; null: of runs bound to no principal. */
  principal?: string | null;
  /** Entries a caller with this principal may see: of its runs, or naming it among the assignees. */
  visibleTo?: string;
  kind?: string;
  /** Entries that expire at or before this time (ISO); entries that never expire are left out. */
  expiringBefore?: string;
}

/** A page of {@link SnapshotStore.listPending}: oldest first, `cursor` null on the last page. */
export interface PendingPage {
  items: PendingItem[];
  cursor: string | null;
}

/** Options of {@link SnapshotStore.renew}. */
export interface RenewOptions {
  owner: string;
  /** The version the owner wrote with its claim; renewing keeps it. */
  version: number;
  /** The lease lasts this long from now (the store's clock). */
  ms: number;
}

/**
 * A request to stop the turn the lease holder is playing (DESIGN §20), kept beside the lease by
 * {@link SnapshotStore.requestStop}. `reason` is what the stopper said, if anything.
 */
export interface StopMark {
  reason?: string;
}

/** What {@link SnapshotStore.renew} may report: the stop mark on the renewed lease, if any. */
export interface RenewResult {
  stop: StopMark | null;
  /** Messages queued on the run (DESIGN §30), for the holder to deliver; absent when none. */
  queued?: QueuedMessage[];
}

/**
 * A run stored in row layout 2, as read by {@link SnapshotStore.getParts}: the head, both logs'
 * texts (every chunk appended so far, in order, joined by `,`), the version and the lease. Read
 * with `{ transcript: 'window' }`, `messages` may be only the tail of the transcript log that
 * starts at `messagesAt` (see {@link GetPartsOptions}).
 */
export interface StoredParts extends SnapshotParts {
  /**
   * Where `messages` starts in the whole transcript log text (UTF-16 code units; absent or 0: it
   * is the whole log). Only a read with `{ transcript: 'window' }` may return a tail, and only one
   * that starts at an entry, at or before the window's start (the last write's `windowAt`).
   */
  messagesAt?: number;
  version: number;
  lease: StoredLease | null;
  /** The store's clock at the read (see {@link StoredSnapshot.now}). */
  now?: number;
  /** Messages queued on the run (see {@link StoredSnapshot.queued}). */
  queued?: QueuedMessage[];
}

/**
 * A layout-2 row's head alone, as read by {@link SnapshotStore.getHead}: no log is read or joined,
 * only the length of the transcript log (its characters, or its bytes in UTF-8, which are at least
 * as many), so a reader can tell whether the transcript is short enough to be worth reading.
 */
export interface StoredHead {
  head: string;
  /** The length of the stored transcript log text (characters, or UTF-8 bytes: an upper bound). */
  messagesLength: number;
  version: number;
  lease: StoredLease | null;
  /** The store's clock at the read (see {@link StoredSnapshot.now}). */
  now?: number;
}

/**
 * What {@link SnapshotStore.putParts} writes: a new head, and log texts to append after the stored
 * ones (`append`: a `,` goes between two non-empty texts) or to replace them (`rewrite`).
 */
export interface PartsWrite extends SnapshotParts {
  mode: 'append' | 'rewrite';
  /**
   * Where the window of a compacted run (DESIGN §22) starts in the transcript log text once this
   * write is stored, in UTF-16 code units (JavaScript string length; absent or 0: at the start).
   * The log before it is not needed to resume the run: a store that keeps it (with the offset
   * where each appended chunk starts) can answer `getParts(runId, { transcript: 'window' })` with
   * the chunks from the one holding it on, without reading the older ones.
   */
  windowAt?: number;
  /**
   * Where `messages` may be cut into chunks (DESIGN §22): the offsets (UTF-16 code units) of the
   * `,` between two entries before each chunk but the first, ascending, so that no chunk is longer
   * than `LOG_CHUNK_CHARS` (64 Ki) unless one entry is. Absent for a short text (almost every
   * write). Given for a long one — a run started with an imported conversation, a rewrite of a long
   * history — so that a store keeping each chunk apart, with where it starts in the log
   * (`logChunks` of `@turnkit/core/store` cuts the text), answers a window read with at most one
   * chunk before the window, however large the write. A store that keeps the text whole stays
   * correct: its window reads are then as long as that text.
   */
  cuts?: number[];
}

/**
 * Options of {@link SnapshotStore.getParts} (DESIGN §22).
 *
 * `transcript: 'window'` (what sessions pass to resume a run): the store may return the transcript
 * log from the start of the chunk holding the last write's `windowAt` on, with `messagesAt` set
 * to where that chunk starts in the whole log, so a resume reads O(window), not O(history). A
 * store that cannot (or a row written before it kept chunk offsets) returns the whole log, which
 * is always correct: sessions then skip to the window themselves.
 *
 * The resolved-record log is returned whole either way: every resolved record is part of the
 * signed snapshot (a repeated answer to any earlier interaction is recognised by it). The stores
 * read it apart from the transcript, so it costs O(resolved interactions) — about 150 bytes per
 * answered question or approval — never O(messages).
 */
export interface GetPartsOptions {
  /** `'full'` (the default): the whole transcript log. `'window'`: it may start at the window's chunk. */
  transcript?: 'window' | 'full';
}

/**
 * Compare-and-set storage of snapshot strings keyed by run id, with leases (DESIGN §12). Every
 * decision about a lease (may this write take the run, is this lease live) is made by the store in
 * the same atomic step as the version check, on the store's own clock, so workers whose clocks
 * disagree still agree on who holds a run.
 */
export interface SnapshotStore {
  get(runId: string): Promise<StoredSnapshot | null>;
  /**
   * Writes when the stored version equals `expectedVersion` (null: absent) and no other owner's
   * lease is live; else throws `ConflictError` and changes nothing. Returns the new version.
   */
  put(runId: string, snapshot: string, opts: PutOptions): Promise<WriteResult>;
  /**
   * Extends `owner`'s lease by `ms` without writing a version. Throws `ConflictError` when the
   * version moved or another owner holds the run: the caller has lost it and must stop. A store
   * with {@link SnapshotStore.requestStop} returns the lease's stop mark (null when unmarked).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: stores written before stop marks resolve to nothing, and stay valid.
  renew(runId: string, opts: RenewOptions): Promise<RenewResult | void>;
  /**
   * Stop (DESIGN §20), optional: marks the live lease of `runId` as asked to stop, in one atomic
   * step with the check that a live lease holds it, without changing the version (the holder's
   * fenced writes go on). Its owner's renewals then return the mark. The mark belongs to that
   * lease: the owner's own writes that keep the lease (`ms > 0`) keep it, any other write (the
   * result, released with `ms: 0`; another owner's claim) drops it. A second request keeps the
   * first reason. Returns false, changing nothing, when no live lease holds the run (or none is stored).
   */
  requestStop?(runId: string, opts: { reason?: string }): Promise<boolean>;
  /**
   * Late input (DESIGN §30), optional: appends `entry` to the run's queue in one atomic step,
   * without changing the version or the lease (an entry whose id is queued already is not added
   * again). The queue is kept until writes that name its ids in `dequeue` remove them; reads
   * (`get`, `getParts`) and renewals return it. Returns whether a live lease held the run
   * at that step (its holder will see the entry), or null, changing nothing, when no run is stored.
   */
  queueMessage?(runId: string, entry: QueuedMessage): Promise<{ live: boolean } | null>;
  /**
   * Run ids whose stored `expiresAt` is at or before `before`, earliest first, at most `limit`.
   * `'now'` means the store's own clock at the query (the one that judges leases), so a sweeper on a
   * skewed host neither expires questions early nor late; a store without a clock of its own uses
   * the host's.
   */
  listExpired(before: Date | 'now', limit?: number): Promise<string[]>;
  /**
   * The inbox index (DESIGN §20), optional: pending interactions of every run, as the last write of
   * each gave them (`PutOptions.pending`), oldest `askedAt` first (then run id, then id), at most
   * `limit`, after `cursor` (the cursor of the previous page; null for the first). Costs O(page),
   * not O(runs).
   */
  listPending?(filter: PendingFilter, limit: number, cursor: string | null): Promise<PendingPage>;
  delete(runId: string): Promise<void>;
  /**
   * Row layout 2 (DESIGN §17), optional: a store with both `getParts` and `putParts` keeps a run as
   * a small head plus append-only logs, and sessions then write only what is new. Reads the run:
   * a layout-2 row as {@link StoredParts}, a row written by `put` (layout 1) as {@link StoredSnapshot},
   * none as null. Head and logs must come from one version (read in one atomic step). With
   * `{ transcript: 'window' }` the transcript log may be only its tail from the window's chunk on
   * (see {@link GetPartsOptions}).
   */
  getParts?(runId: string, options?: GetPartsOptions): Promise<StoredParts | StoredSnapshot | null>;
  /**
   * Writes a layout-2 row under exactly the rules of `put` (version, lease, `expiresAt`), in one
   * atomic step with them: a refused write leaves no appended text visible. `append` onto a row
   * stored by `put` throws `ConflictError` (sessions rewrite such a row); onto no row, it creates
   * one. `get` returns the row assembled (`assembleSnapshot`), and a `put` replaces it whole.
   */
  putParts?(runId: string, write: PartsWrite, opts: PutOptions): Promise<WriteResult>;
  /**
   * Optional, with row layout 2: reads a layout-2 row's head and the length of its transcript log,
   * without reading the logs (a run's state for `GET /runs/:id/events`); a layout-1 row whole, as
   * `get` does; none as null.
   */
  getHead?(runId: string): Promise<StoredHead | StoredSnapshot | null>;
  /**
   * History (DESIGN §21), optional, with {@link SnapshotStore.getAt}: the points kept of a run,
   * oldest first (`[]` for an unknown run). Every `putParts` write is a point, recorded in the same
   * atomic step as the write, as its head and the lengths of both logs at that version (logs only
   * grow, so that locates the version in them). A `rewrite` or a `put` replaces the logs, so the
   * points before it are dropped; the store's `keepHistory` option says how many are kept.
   */
  listPoints?(runId: string): Promise<StoredPoint[]>;
  /** The run as stored at a kept point: its head and both logs cut at that version; null when not kept. */
  getAt?(runId: string, version: number): Promise<SnapshotParts | null>;
}

/**
 * One point of a run's history (DESIGN §21), as kept by a store with {@link SnapshotStore.listPoints}:
 * a version written in row layout 2, when the store wrote it (its own clock, ISO), and its head.
 */
export interface StoredPoint {
  version: number;
  /** When the store wrote this version (ISO 8601, the store's clock). */
  at: string;
  /** The head written with this version (see `SnapshotParts.head`). */
  head: string;
}

/**
 * How many points of each run a store keeps for history and forks (DESIGN §21): `true` (the
 * default) every one, `false` none, a number the latest that many. A point costs a head and two
 * log offsets, never a copy of the logs.
 */
export type KeepHistory = boolean | number;

/** Throws CONFIG_INVALID unless `keep` is a {@link KeepHistory}; returns how many points to keep. */
export function pointsToKeep(keep: KeepHistory | undefined, where: string): number {
  if (keep === undefined || keep === true) return Number.POSITIVE_INFINITY;
  if (keep === false) return 0;
  if (!Number.isSafeInteger(keep) || keep < 0) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: keepHistory is true (every point), false (none) or a whole number of points >= 0, got ${String(keep)}.`,
    );
  }
  return keep;
}

/** The `ConflictError` of an append onto a row that `put` wrote (layout 1): there is no log to append to. */
export function notInPartsError(runId: string): ConflictError {
  return new ConflictError(
    `Run ${runId} is stored whole (row layout 1), so nothing can be appended to it: load it again and rewrite it.`,
  );
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

/** The stop mark of a stored reason (`''`: marked without one), or null when `stored` is absent. */
export function stopMarkOf(stored: string | null | undefined): StopMark | null {
  if (stored === null || stored === undefined) return null;
  return stored === '' ? {} : { reason: stored };
}

/** The `ConflictError` of a write or renewal refused because another worker's lease is live. */
export function leaseHeldError(runId: string): ConflictError {
  return new ConflictError(
    `Run ${runId} is held by another worker whose lease is live. Wait for it to finish and load the run again.`,
  );
}

/** Throws CONFIG_INVALID unless `ms` is a lease duration a store can keep. */
export function checkLeaseMs(ms: number, where: string): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new TurnkitError('CONFIG_INVALID', `${where}: a lease lasts a whole number of ms >= 0, got ${ms}.`);
  }
}

/** The order of the inbox: askedAt, then run id, then interaction id. A cursor is the last key of a page. */
export function pendingKey(item: { askedAt: string; runId: string; id: string }): string {
  const ms = Date.parse(item.askedAt);
  return `${String(Number.isFinite(ms) ? ms : 0).padStart(15, '0')}\n${item.runId}\n${item.id}`;
}

/** Whether an index entry passes `filter` (the stores' shared test, after their index narrowed it). */
export function matchesPending(entry: PendingIndexEntry, filter: PendingFilter): boolean {
  if (filter.assignee !== undefined && !entry.assignees?.includes(filter.assignee)) return false;
  if (filter.principal === null && entry.principal !== undefined) return false;
  if (typeof filter.principal === 'string' && entry.principal !== filter.principal) return false;
  if (
    filter.visibleTo !== undefined &&
    entry.principal !== filter.visibleTo &&
    !entry.assignees?.includes(filter.visibleTo)
  )
    return false;
  if (filter.kind !== undefined && entry.kind !== filter.kind) return false;
  if (filter.expiringBefore !== undefined) {
    if (entry.expiresAt === undefined) return false;
    if (Date.parse(entry.expiresAt) > Date.parse(filter.expiringBefore)) return false;
  }
  return true;
}
