/**
 * `redisStore(client)`: a SnapshotStore on Redis (ioredis), for many stateless workers sharing runs.
 * Every decision is one Lua script judged on the server's own clock (`TIME`): the version check, the
 * lease check and the write happen in one atomic step, whatever the number of clients and however far
 * their clocks drift. Runs are kept in row layout 2 (DESIGN §17): a head and append-only log chunks
 * in the run's hash, so each write sends only what is new.
 */

import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { type KeepHistory, SnapshotError, type SnapshotStore, TurnkitError } from '@turnkit/core';
import {
  assembleSnapshot,
  checkLeaseMs,
  leaseHeldError,
  logChunks,
  matchesPending,
  notInPartsError,
  type PartsWrite,
  type PendingFilter,
  type PendingIndexEntry,
  type PendingItem,
  type PutOptions,
  pendingKey,
  pointsToKeep,
  type QueuedMessage,
  type StoredParts,
  type StoredPoint,
  type StoredSnapshot,
  staleWriteError,
  stopMarkOf,
} from '@turnkit/core/store';
import type { Redis } from 'ioredis';
import {
  DELETE_SCRIPT,
  DROP_GONE_SCRIPT,
  GET_AT_SCRIPT,
  GET_SCRIPT,
  HEAD_SCRIPT,
  KIND_INDEX_SCRIPT,
  PRUNE_SCRIPT,
  PUT_PARTS_SCRIPT,
  PUT_SCRIPT,
  QUEUE_SCRIPT,
  RENEW_SCRIPT,
  REQUEST_STOP_SCRIPT,
} from './redis-store-scripts.js';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** Prepended to the run id to make the run's key. Default `'turnkit:run:'`. */
  prefix?: string | undefined;
  /** When set, a run's key expires this many seconds after its last write or renewal (Redis EXPIRE). */
  ttlSeconds?: number | undefined;
  /** The sorted set indexing runs by `expiresAt`, for `listExpired`. Default `` `${prefix}__expiry__` ``. */
  expiryKey?: string | undefined;
  /**
   * The inbox index (`listPending`): a hash of entries at this key, and sorted sets at this key +
   * a scope (`:all`, `:p:<principal>`, `:np`, `:a:<assignee>`, `:v:<principal>`, `:k:<kind>`),
   * replaced by the write scripts. Default `` `${prefix}__pending__` ``. With `ttlSeconds`, entries of
   * runs whose key expired are left out of listings (and stay in the index until the run id is
   * written again). The first listing by `kind` alone puts the entries written by earlier versions
   * (which kept no `:k:` sets) into theirs, once (marker `<key>:kinds`); upgrade every writer
   * before relying on it, as an older writer adds no entry to a kind's set.
   */
  pendingKey?: string | undefined;
  /**
   * How many points of each run to keep for `sessions.history` and `sessions.fork` (default: all).
   * A point is a field of the run's hash: its head and the number of log chunks it had.
   */
  keepHistory?: KeepHistory;
}

/** Each script's SHA1, as `EVALSHA` names it (computed once per script per process). */
const scriptShas = new Map<string, string>();
function scriptSha(script: string): string {
  let sha = scriptShas.get(script);
  if (sha === undefined) {
    sha = bytesToHex(sha1(utf8ToBytes(script)));
    scriptShas.set(script, sha);
  }
  return sha;
}

/** Index entries read per round trip by `listExpired` when no limit is given. */
const LIST_BATCH = 500;

type ScriptReply = [number, string | number, number?, string?];

/** A queue as the scripts keep it (JSON text, '' or absent for none), as reads and writes return it. */
function queueOf(text: string | null | undefined): { queued?: QueuedMessage[] } {
  if (!text) return {};
  const queued = JSON.parse(text) as QueuedMessage[];
  return Array.isArray(queued) && queued.length > 0 ? { queued } : {};
}

/** What GET_SCRIPT returns for a run: whole (6 items) or in parts (9: the logs as lists of chunks), the server's TIME fourth, the queue last. */
type GetReply =
  | [string, string, number, number, string, string]
  | [string, string, number, number, string, string[], string[], number, string];

/**
 * A {@link SnapshotStore} on Redis. Each run is a hash at `prefix + runId` with the fields
 * `version`, `expiresAt` (ISO, or empty), while a worker holds it `leaseOwner` and `leaseUntil`
 * (epoch ms on the Redis server's clock) and, once asked to stop (`requestStop`), `leaseStop`, and its content: in row layout 2 (what sessions write,
 * DESIGN §17) `head`, `chunks` and the log chunks `m1`, `r1`, `m2`, … (the messages' and resolved
 * records' texts each write appended, a long messages' text cut into several where its write
 * allows; an empty one is left out), with `mlen`, `wat` and `a1`, `a2`, … (the transcript log's
 * length, where the window starts, where each chunk starts: a resume reads the transcript from the
 * window's chunk on, DESIGN §22); in layout 1 (`put`) `snapshot`.
 * Runs with an `expiresAt` are also in a sorted set (`expiryKey`, scored by epoch ms) that
 * `listExpired` reads. Messages queued on a run (DESIGN §30, `queueMessage`) are the run id's field
 * of the hash `prefix + '__queued__'` (JSON), which rewrites of the run's hash leave alone; each
 * write removes the ids it delivered in its own script. (With `ttlSeconds` that field outlives an
 * expired run until the run id is written or deleted again, or a listing — `listPending`,
 * `listExpired` — meets the run gone and drops it.)
 *
 * `put`, `putParts`, `renew` and `get` are Lua scripts that read the server's `TIME`: a lease is
 * taken, refused, extended and reported live by Redis alone, so concurrent writers get exactly one
 * winner and workers whose clocks disagree still agree on who holds a run. An append adds its chunk
 * in the same script as the version check, so a refused write adds nothing. A claim or a result
 * sends the head and the new chunk only; `get` joins the chunks in the script (one round trip).
 * Hashes written by earlier releases (`snapshot`, maybe no lease fields) read as they are, and are
 * rewritten as layout 2 by the next write of sessions. Needs Redis 7 or later.
 *
 * The run key and the index key must live on one node: use a plain `Redis` client (or give the
 * prefix a `{hash tag}` on a cluster).
 *
 * Node only: ioredis talks to Redis over TCP sockets (`node:net`, `node:tls`), which Workers and
 * Edge runtimes lack.
 *
 * @param client A connected ioredis client; the store never closes it.
 */
export function redisStore(client: Redis, options: RedisStoreOptions = {}): SnapshotStore {
  const prefix = options.prefix ?? 'turnkit:run:';
  const expiryKey = options.expiryKey ?? `${prefix}__expiry__`;
  const inboxKey = options.pendingKey ?? `${prefix}__pending__`;
  // Late input (DESIGN §30): each run's queued messages, a field of one hash, kept across rewrites.
  const queueKey = `${prefix}__queued__`;
  const ttlSeconds = options.ttlSeconds;
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `redisStore: ttlSeconds must be a positive integer, got ${ttlSeconds}.`,
    );
  }
  const ttl = ttlSeconds === undefined ? '' : String(ttlSeconds);
  const keepCount = pointsToKeep(options.keepHistory, 'redisStore');
  const keep = keepCount === Number.POSITIVE_INFINITY ? '' : String(keepCount);
  const runKey = (runId: string, where: string) => {
    const key = prefix + runId;
    if (runId === '' || key === expiryKey || key === queueKey || key.startsWith(inboxKey)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${where}: run id ${JSON.stringify(runId)} cannot be used: it is empty or names the expiry index ${expiryKey} or the inbox index ${inboxKey}.`,
      );
    }
    return key;
  };

  /**
   * Runs a script by its SHA1 (`EVALSHA`), so a call sends 40 bytes instead of the script's text;
   * the first call on a server that has not seen it (or lost its cache in a restart) gets
   * `NOSCRIPT` and sends the text once (`EVAL`, which caches it).
   */
  async function runScript(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown> {
    const sha = scriptSha(script);
    try {
      return await client.evalsha(sha, numKeys, ...args);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      return client.eval(script, numKeys, ...args);
    }
  }

  /** The index entries due by `before`, from `offset`, after dropping those whose run is gone. */
  async function expiredPage(before: number, offset: number, count: number): Promise<[string[], number]> {
    const candidates = await client.zrangebyscore(expiryKey, '-inf', before, 'LIMIT', offset, count);
    if (candidates.length === 0) return [[], 0];
    const keys = candidates.map((runId) => prefix + runId);
    const kept = (await runScript(
      DROP_GONE_SCRIPT,
      keys.length + 2,
      expiryKey,
      queueKey,
      ...keys,
      ...candidates,
    )) as number[];
    return [candidates.filter((_, index) => kept[index] === 1), candidates.length];
  }

  /** Once per store: entries written before kinds had their own sets are put into them (see KIND_INDEX_SCRIPT). */
  let kindIndex: Promise<unknown> | undefined;
  function kindsIndexed(): Promise<unknown> {
    kindIndex ??= runScript(KIND_INDEX_SCRIPT, 1, inboxKey).catch((error: unknown) => {
      kindIndex = undefined;
      throw error;
    });
    return kindIndex;
  }

  /** The run ids among `runIds` whose hash no longer exists (their queued messages dropped). */
  async function vanished(runIds: string[]): Promise<Set<string>> {
    const unique = [...new Set(runIds)];
    if (unique.length === 0) return new Set();
    // Their expiry entries and queued messages go with them, so neither outlives its run.
    const kept = (await runScript(
      DROP_GONE_SCRIPT,
      unique.length + 2,
      expiryKey,
      queueKey,
      ...unique.map((runId) => prefix + runId),
      ...unique,
    )) as number[];
    return new Set(unique.filter((_, index) => kept[index] === 0));
  }

  /** Runs a write script (its ARGV after the shared ones: `extra`) and maps its refusals to errors. */
  async function write(
    runId: string,
    where: string,
    script: string,
    content: string,
    opts: PutOptions,
    extra: string[] = [],
  ): Promise<{ version: number; now: number; queued?: QueuedMessage[] }> {
    const key = runKey(runId, where);
    if (opts.lease) checkLeaseMs(opts.lease.ms, where);
    const expiresAt = opts.expiresAt ?? null;
    const [written, version, now, left] = (await runScript(
      script,
      4,
      key,
      expiryKey,
      inboxKey,
      queueKey,
      opts.expectedVersion === null ? '' : String(opts.expectedVersion),
      content,
      expiresAt === null ? '' : String(parseExpiresAt(expiresAt, where)),
      expiresAt ?? '',
      ttl,
      runId,
      opts.lease ? '1' : '0',
      opts.lease?.owner ?? '',
      String(opts.lease?.ms ?? 0),
      pendingArgument(runId, opts.pending),
      ...extra,
      JSON.stringify(opts.dequeue ?? []),
    )) as ScriptReply;
    if (written === -1) throw leaseHeldError(runId);
    if (written === -2) throw notInPartsError(runId);
    if (written !== 1) {
      throw staleWriteError(runId, opts.expectedVersion, version === '' ? null : Number(version));
    }
    return { version: Number(version), now: Number(now), ...queueOf(left) };
  }

  /** Reads a run in one script: whole (layout 1) or as parts (layout 2). */
  async function read(
    runId: string,
    where: string,
    window = false,
  ): Promise<StoredParts | StoredSnapshot | null> {
    const key = runKey(runId, where);
    const reply = (await runScript(GET_SCRIPT, 2, key, queueKey, window ? 'window' : '', runId).catch(
      (error: unknown) => {
        if (!String(error).includes('TURNKIT_CORRUPT_CHUNKS')) throw error;
        throw new SnapshotError(
          'SNAPSHOT_INVALID',
          `${where}: run ${runId} has a corrupted chunk count, so its logs cannot be read. Restore the hash as TurnKit wrote it, or delete the run.`,
        );
      },
    )) as GetReply | null;
    if (reply === null) return null;
    const [version, owner, live, now] = reply;
    const lease = live === -1 ? null : { owner, live: live === 1 };
    // The queue is read in the script, with the run: one atomic step, so a claim built on this read
    // never delivers a message the transcript read already holds.
    if (reply.length === 6)
      return { snapshot: reply[4], version: Number(version), lease, now: Number(now), ...queueOf(reply[5]) };
    const stored = { version: Number(version), lease, now: Number(now), ...queueOf(reply[8]) };
    const at = Number(reply[7]);
    return {
      head: reply[4],
      messages: reply[5].join(','),
      ...(at > 0 ? { messagesAt: at } : {}),
      resolved: reply[6].join(','),
      ...stored,
    };
  }

  return {
    async get(runId): Promise<StoredSnapshot | null> {
      const row = await read(runId, 'redisStore.get');
      if (row === null || 'snapshot' in row) return row;
      const { version, lease, now, queued } = row;
      return {
        snapshot: assembleSnapshot(row),
        version,
        lease,
        ...(now !== undefined ? { now } : {}),
        ...(queued ? { queued } : {}),
      };
    },

    getParts: (runId, options) => read(runId, 'redisStore.getParts', options?.transcript === 'window'),

    async getHead(runId) {
      const where = 'redisStore.getHead';
      const reply = (await runScript(HEAD_SCRIPT, 1, runKey(runId, where)).catch((error: unknown) => {
        if (!String(error).includes('TURNKIT_CORRUPT_CHUNKS')) throw error;
        throw new SnapshotError(
          'SNAPSHOT_INVALID',
          `${where}: run ${runId} has a corrupted chunk count, so its logs cannot be read. Restore the hash as TurnKit wrote it, or delete the run.`,
        );
      })) as [string, string, number, number, string, number?] | null;
      if (reply === null) return null;
      const [version, owner, live, now, content, length] = reply;
      const stored = {
        version: Number(version),
        lease: live === -1 ? null : { owner, live: live === 1 },
        now: Number(now),
      };
      if (length === undefined) return { snapshot: content, ...stored };
      return { head: content, messagesLength: Math.max(0, Number(length) - 1), ...stored };
    },

    put: (runId, snapshot, opts) => write(runId, 'redisStore.put', PUT_SCRIPT, snapshot, opts),

    putParts(runId, parts: PartsWrite, opts) {
      // A long messages' text goes as the chunks its write allows, one hash field each (DESIGN §22).
      const [first, ...more] = logChunks(parts.messages, parts.cuts);
      return write(runId, 'redisStore.putParts', PUT_PARTS_SCRIPT, parts.head, opts, [
        parts.mode,
        first!.text,
        parts.resolved,
        keep,
        String(first!.text.length),
        String(parts.windowAt ?? 0),
        ...more.flatMap((chunk) => [String(chunk.text.length), chunk.text]),
      ]);
    },

    async listPoints(runId) {
      const key = runKey(runId, 'redisStore.listPoints');
      const [version, pfrom] = await client.hmget(key, 'version', 'pfrom');
      const last = Number(version);
      const first = Number(pfrom);
      if (version === null || pfrom === null || !(first >= 1 && first <= last)) return [];
      const versions = Array.from({ length: last - first + 1 }, (_, index) => first + index);
      const points: StoredPoint[] = [];
      for (let from = 0; from < versions.length; from += LIST_BATCH) {
        const batch = versions.slice(from, from + LIST_BATCH);
        const values = await client.hmget(key, ...batch.map((kept) => `p${kept}`));
        values.forEach((value, index) => {
          const a = value?.indexOf(':') ?? -1;
          const b = a < 0 ? -1 : value!.indexOf(':', a + 1);
          if (value == null || b < 0) return;
          const at = new Date(Number(value.slice(0, a))).toISOString();
          points.push({ version: batch[index]!, at, head: value.slice(b + 1) });
        });
      }
      return points;
    },

    async getAt(runId, version) {
      const key = runKey(runId, 'redisStore.getAt');
      const reply = (await runScript(GET_AT_SCRIPT, 1, key, String(version))) as
        | [string, string[], string[]]
        | null;
      return reply && { head: reply[0], messages: reply[1].join(','), resolved: reply[2].join(',') };
    },

    async renew(runId, opts) {
      const key = runKey(runId, 'redisStore.renew');
      checkLeaseMs(opts.ms, 'redisStore.renew');
      const [renewed, version, marked, reason, queued] = (await runScript(
        RENEW_SCRIPT,
        2,
        key,
        queueKey,
        String(opts.version),
        opts.owner,
        String(opts.ms),
        ttl,
        runId,
      )) as [number, string | number, string?, string?, string?];
      if (renewed === -1) throw leaseHeldError(runId);
      if (renewed !== 1) throw staleWriteError(runId, opts.version, version === '' ? null : Number(version));
      return { stop: stopMarkOf(marked === '1' ? reason : undefined), ...queueOf(queued) };
    },

    async queueMessage(runId, entry) {
      const key = runKey(runId, 'redisStore.queueMessage');
      const text = JSON.stringify({ id: entry.id, messages: entry.messages });
      const live = (await runScript(QUEUE_SCRIPT, 2, key, queueKey, runId, entry.id, text)) as number;
      return live === -1 ? null : { live: live === 1 };
    },

    async requestStop(runId, opts) {
      const key = runKey(runId, 'redisStore.requestStop');
      return (await runScript(REQUEST_STOP_SCRIPT, 1, key, opts.reason ?? '')) === 1;
    },

    async delete(runId) {
      const key = runKey(runId, 'redisStore.delete');
      await runScript(DELETE_SCRIPT, 2, key, inboxKey);
      await client.zrem(expiryKey, runId);
      await client.hdel(queueKey, runId);
    },

    async listPending(filter, limit, cursor) {
      const scope = inboxKey + scopeOf(filter);
      const byKind = scope.startsWith(`${inboxKey}:k:`);
      if (byKind) await kindsIndexed();
      const items: PendingItem[] = [];
      let from = cursor === null ? '-' : `(${cursor}`;
      // Read a page at a time from the narrowest scope; the other filters are checked on the entries.
      for (;;) {
        const batch = Math.max(limit + 1, 64);
        const keys = await client.zrangebylex(scope, from, '+', 'LIMIT', 0, batch);
        if (keys.length === 0) return { items, cursor: null };
        const texts = await client.hmget(inboxKey, ...keys);
        const entries = texts.flatMap((text) => (text === null ? [] : [JSON.parse(text) as PendingItem]));
        if (byKind && entries.length < keys.length) {
          const gone = keys.filter((_, index) => texts[index] === null);
          await runScript(PRUNE_SCRIPT, 2, inboxKey, scope, ...gone);
        }
        // With `ttlSeconds` a run's hash can vanish before its entries: those are left out.
        const gone = ttl === '' ? new Set<string>() : await vanished(entries.map((item) => item.runId));
        for (const item of entries) {
          if (gone.has(item.runId) || !matchesPending(item, filter)) continue;
          if (items.length === limit) return { items, cursor: pendingKey(items.at(-1)!) };
          items.push(item);
        }
        if (keys.length < batch) return { items, cursor: null };
        from = `(${keys.at(-1)!}`;
      }
    },

    async listExpired(before, limit = Number.POSITIVE_INFINITY) {
      // 'now' is the server's TIME, the clock its leases are judged by.
      const cutoff =
        before === 'now' ? serverNow((await client.time()) as [number, number]) : before.getTime();
      const listed = new Set<string>();
      // Entries of vanished runs are dropped as they are met, so the live ones keep their offsets.
      let offset = 0;
      while (listed.size < limit) {
        const count = Math.min(limit - listed.size, LIST_BATCH);
        const [kept, read] = await expiredPage(cutoff, offset, count);
        for (const runId of kept) listed.add(runId);
        offset += kept.length;
        if (read < count) break;
      }
      return [...listed];
    },
  };
}

/** The sorted set a filter reads: the narrowest its fields allow (a kind alone has its own). */
function scopeOf(filter: PendingFilter): string {
  if (filter.assignee !== undefined) return `:a:${filter.assignee}`;
  if (filter.visibleTo !== undefined) return `:v:${filter.visibleTo}`;
  if (filter.principal === null) return ':np';
  if (filter.principal !== undefined) return `:p:${filter.principal}`;
  if (filter.kind !== undefined) return `:k:${filter.kind}`;
  return ':all';
}

/** The run's entries as the write scripts take them: `[key, scopes, entry JSON]` each. */
function pendingArgument(runId: string, pending: PendingIndexEntry[] | null | undefined): string {
  const items = (pending ?? []).map((entry) => {
    const item: PendingItem = { ...entry, runId };
    const scopes = new Set([
      ':all',
      `:k:${entry.kind}`,
      entry.principal === undefined ? ':np' : `:p:${entry.principal}`,
    ]);
    for (const assignee of entry.assignees ?? []) scopes.add(`:a:${assignee}`).add(`:v:${assignee}`);
    if (entry.principal !== undefined) scopes.add(`:v:${entry.principal}`);
    return [pendingKey(item), [...scopes], JSON.stringify(item)];
  });
  // cjson reads `[]` as an empty table, which is what the scripts iterate.
  return JSON.stringify(items);
}

/** Redis `TIME` ([seconds, microseconds]) in epoch ms. */
function serverNow([seconds, micros]: [string | number, string | number]): number {
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

function parseExpiresAt(expiresAt: string, where: string): number {
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: expiresAt ${JSON.stringify(expiresAt)} is not an ISO date.`,
    );
  }
  return ms;
}
