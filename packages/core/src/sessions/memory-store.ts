/**
 * `memoryStore`: the in-process {@link SnapshotStore} (tests, single long-lived processes). Its
 * leases are judged by the host clock, or by the `now` you give it. It keeps runs in row layout 2
 * when sessions write them so (`putParts`), like the stores of `@turnkit/adapters`.
 */
import { assembleSnapshot, joinLog, logChunks, type SnapshotParts } from '../snapshot/index.js';
import {
  checkLeaseMs,
  type KeepHistory,
  leaseHeldError,
  matchesPending,
  notInPartsError,
  type PendingItem,
  type PutOptions,
  pendingKey,
  pointsToKeep,
  type QueuedMessage,
  type SnapshotStore,
  staleWriteError,
  stopMarkOf,
} from './store.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** The store's clock in epoch ms (default `Date.now`): it alone judges leases, and question expiry unless a call passes `now`. */
  now?: () => number;
  /** How many points of each run to keep for `sessions.history` and `sessions.fork` (default: all). */
  keepHistory?: KeepHistory;
}

/** A kept point: its version, when (epoch ms), its head and both logs' lengths at that version. */
type Point = { version: number; at: number; head: string; messages: number; resolved: number };

/** A run: a whole snapshot (layout 1, written by `put`) or parts (layout 2, by `putParts`). */
type Row = {
  version: number;
  expiresAt: number | null;
  /** `stop`: the reason of a stop request on this lease ('' for none), see `requestStop`. */
  lease: { owner: string; until: number; stop?: string } | null;
  /** History (layout 2 only), oldest first. */
  points?: Point[];
  /** Where the window starts in the transcript log (layout 2, `PartsWrite.windowAt`). */
  windowAt?: number;
  /**
   * Each appended transcript text, cut where its write allows (`PartsWrite.cuts`), and where it
   * starts in the log (layout 2), for partial reads.
   */
  chunks?: { at: number; text: string }[];
  /** Late input (DESIGN §30): messages queued beside the run, kept across writes until dequeued. */
  queued?: QueuedMessage[];
} & ({ snapshot: string; parts?: undefined } | { parts: SnapshotParts; snapshot?: undefined });

/**
 * An in-memory {@link SnapshotStore}: compare-and-set and leases in one process, gone when the
 * process ends.
 *
 * @example
 * const sessions = createSessions({ agent, store: memoryStore() });
 */
export function memoryStore(options: MemoryStoreOptions = {}): SnapshotStore {
  const clock = options.now ?? Date.now;
  const keep = pointsToKeep(options.keepHistory, 'memoryStore');
  const rows = new Map<string, Row>();
  // The inbox index: entries by key, their keys sorted (askedAt, run id, id), and each run's keys.
  const pending = new Map<string, PendingItem>();
  const pendingOrder: string[] = [];
  const pendingOfRun = new Map<string, string[]>();
  const position = (key: string) => {
    let low = 0;
    let high = pendingOrder.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (pendingOrder[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  /** Replaces a run's entries in the index (after its write succeeded). */
  function index(runId: string, entries: PutOptions['pending']) {
    for (const key of pendingOfRun.get(runId) ?? []) {
      pending.delete(key);
      pendingOrder.splice(position(key), 1);
    }
    pendingOfRun.delete(runId);
    if (!entries || entries.length === 0) return;
    const keys: string[] = [];
    for (const entry of entries) {
      // A copy through JSON, as the other stores keep entries (several times faster than structuredClone here).
      const item = JSON.parse(JSON.stringify({ ...entry, runId })) as PendingItem;
      const key = pendingKey(item);
      if (pending.has(key)) continue;
      pending.set(key, item);
      pendingOrder.splice(position(key), 0, key);
      keys.push(key);
    }
    pendingOfRun.set(runId, keys);
  }
  const leaseOf = (row: Row) =>
    row.lease ? { owner: row.lease.owner, live: row.lease.until > clock() } : null;

  /** The checks of every write (version, then lease), and what the written row keeps besides its content. */
  function admit(runId: string, opts: PutOptions, where: string) {
    if (opts.lease) checkLeaseMs(opts.lease.ms, where);
    const row = rows.get(runId);
    const current = row?.version ?? null;
    if (current !== opts.expectedVersion) throw staleWriteError(runId, opts.expectedVersion, current);
    const held = row?.lease;
    if (held && held.owner !== opts.lease?.owner && held.until > clock()) throw leaseHeldError(runId);
    // A stop mark stays with its lease: only the holder's own writes that keep the lease keep it.
    const stop = held?.stop !== undefined && held.owner === opts.lease?.owner ? { stop: held.stop } : {};
    // The queue outlives writes: only the ids this write delivered leave it.
    const dequeue = new Set(opts.dequeue ?? []);
    const queued = (row?.queued ?? []).filter((entry) => !dequeue.has(entry.id));
    return {
      row,
      kept: {
        version: (current ?? 0) + 1,
        expiresAt: opts.expiresAt ? Date.parse(opts.expiresAt) : null,
        lease: opts.lease?.ms ? { owner: opts.lease.owner, until: clock() + opts.lease.ms, ...stop } : null,
        ...(queued.length > 0 ? { queued } : {}),
      },
    };
  }
  /** A row's queue as a read returns it: a copy, absent when empty. */
  const queueOf = (row: Pick<Row, 'queued'>) =>
    row.queued?.length ? { queued: structuredClone(row.queued) } : {};

  return {
    async get(runId) {
      const row = rows.get(runId);
      if (!row) return null;
      const snapshot = row.parts ? assembleSnapshot(row.parts) : row.snapshot;
      return { snapshot, version: row.version, lease: leaseOf(row), now: clock(), ...queueOf(row) };
    },
    async getParts(runId, options) {
      const row = rows.get(runId);
      if (!row) return null;
      const stored = { version: row.version, lease: leaseOf(row), now: clock(), ...queueOf(row) };
      if (!row.parts) return { snapshot: row.snapshot, ...stored };
      // The window's tail only (DESIGN §22): the chunks from the one holding its start, joined
      // (cutting the whole log's text would copy the history).
      const windowAt = options?.transcript === 'window' ? (row.windowAt ?? 0) : 0;
      const chunks = row.chunks ?? [];
      let first = chunks.length - 1;
      while (first > 0 && chunks[first]!.at > windowAt) first--;
      if (windowAt === 0 || first <= 0) return { ...row.parts, ...stored };
      const messages = chunks
        .slice(first)
        .map((chunk) => chunk.text)
        .join(',');
      return { ...row.parts, messages, messagesAt: chunks[first]!.at, ...stored };
    },
    async getHead(runId) {
      const row = rows.get(runId);
      if (!row) return null;
      const stored = { version: row.version, lease: leaseOf(row), now: clock() };
      if (!row.parts) return { snapshot: row.snapshot, ...stored };
      return { head: row.parts.head, messagesLength: row.parts.messages.length, ...stored };
    },
    async put(runId, snapshot, opts) {
      const { kept } = admit(runId, opts, 'memoryStore.put');
      // `kept` is this write's own object: given its snapshot in place, not spread then extended
      // (which leaves V8's fast path, see machine/extend.ts).
      rows.set(runId, Object.assign(kept, { snapshot }));
      index(runId, opts.pending);
      return { version: kept.version, now: clock(), ...queueOf(kept) };
    },
    async putParts(runId, write, opts) {
      const { row, kept } = admit(runId, opts, 'memoryStore.putParts');
      const append = write.mode === 'append' && row !== undefined;
      if (append && !row.parts) throw notInPartsError(runId);
      const parts = {
        head: write.head,
        messages: append ? joinLog(row.parts!.messages, write.messages) : write.messages,
        resolved: append ? joinLog(row.parts!.resolved, write.resolved) : write.resolved,
      };
      const point = {
        version: kept.version,
        at: clock(),
        head: parts.head,
        messages: parts.messages.length,
        resolved: parts.resolved.length,
      };
      const points = keep === 0 ? [] : [...(append ? (row.points ?? []) : []), point].slice(-keep);
      const windowAt = write.windowAt ?? 0;
      const before = append ? row.parts!.messages.length : 0;
      const chunks = append ? [...(row.chunks ?? [])] : [];
      if (write.messages !== '') {
        const start = before > 0 ? before + 1 : 0;
        for (const chunk of logChunks(write.messages, write.cuts)) {
          chunks.push({ at: start + chunk.at, text: chunk.text });
        }
      }
      rows.set(runId, { ...kept, parts, points, chunks, ...(windowAt > 0 ? { windowAt } : {}) });
      index(runId, opts.pending);
      return { version: kept.version, now: clock(), ...queueOf(kept) };
    },
    async listPoints(runId) {
      const points = rows.get(runId)?.points ?? [];
      return points.map(({ version, at, head }) => ({ version, at: new Date(at).toISOString(), head }));
    },
    async getAt(runId, version) {
      const row = rows.get(runId);
      const point = row?.points?.find((kept) => kept.version === version);
      if (!row?.parts || !point) return null;
      return {
        head: point.head,
        messages: row.parts.messages.slice(0, point.messages),
        resolved: row.parts.resolved.slice(0, point.resolved),
      };
    },
    async renew(runId, opts) {
      checkLeaseMs(opts.ms, 'memoryStore.renew');
      const row = rows.get(runId);
      if (!row || row.version !== opts.version)
        throw staleWriteError(runId, opts.version, row?.version ?? null);
      if (row.lease?.owner !== opts.owner) throw leaseHeldError(runId);
      row.lease = { ...row.lease, until: clock() + opts.ms };
      return { stop: stopMarkOf(row.lease.stop), ...queueOf(row) };
    },
    async queueMessage(runId, entry) {
      const row = rows.get(runId);
      if (!row) return null;
      if (!row.queued?.some((queued) => queued.id === entry.id)) {
        row.queued = [...(row.queued ?? []), { id: entry.id, messages: entry.messages }];
      }
      return { live: row.lease !== null && row.lease.until > clock() };
    },
    async requestStop(runId, opts) {
      const lease = rows.get(runId)?.lease;
      if (!lease || lease.until <= clock()) return false;
      lease.stop ??= opts.reason ?? '';
      return true;
    },
    async listExpired(before, limit = Number.POSITIVE_INFINITY) {
      const cutoff = before === 'now' ? clock() : before.getTime();
      return [...rows]
        .filter(([, row]) => row.expiresAt !== null && row.expiresAt <= cutoff)
        .sort(([, a], [, b]) => a.expiresAt! - b.expiresAt!)
        .slice(0, limit)
        .map(([runId]) => runId);
    },
    async listPending(filter, limit, cursor) {
      const items: PendingItem[] = [];
      let at = cursor === null ? 0 : position(cursor);
      if (cursor !== null && pendingOrder[at] === cursor) at++;
      for (; at < pendingOrder.length; at++) {
        const item = pending.get(pendingOrder[at]!)!;
        if (!matchesPending(item, filter)) continue;
        if (items.length === limit) return { items, cursor: pendingKey(items.at(-1)!) };
        items.push(structuredClone(item));
      }
      return { items, cursor: null };
    },
    async delete(runId) {
      rows.delete(runId);
      index(runId, null);
    },
  };
}
