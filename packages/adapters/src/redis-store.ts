/**
 * `redisStore(client)`: a SnapshotStore on Redis (ioredis), for many stateless workers sharing runs.
 * Compare-and-set is one Lua script, so it is atomic on the server whatever the number of clients.
 */
import { type SnapshotStore, type StoredSnapshot, staleWriteError, TurnkitError } from '@turnkit/core';
import type { Redis } from 'ioredis';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** Prepended to the run id to make the run's key. Default `'turnkit:run:'`. */
  prefix?: string;
  /** When set, a run's key expires this many seconds after its last write (Redis EXPIRE). */
  ttlSeconds?: number;
  /** The sorted set indexing runs by `expiresAt`, for `listExpired`. Default `` `${prefix}__expiry__` ``. */
  expiryKey?: string;
}

/**
 * KEYS: run hash, expiry index. ARGV: expected version ('' = must be absent), snapshot, expiresAt
 * as epoch ms ('' = none), expiresAt as written, TTL seconds ('' = none), run id.
 * Returns {1, newVersion} or {0, currentVersion or ''}.
 */
const PUT_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if current then return {0, current} end
elseif current ~= ARGV[1] then
  return {0, current or ''}
end
local version = (tonumber(current) or 0) + 1
redis.call('HSET', KEYS[1], 'version', version, 'snapshot', ARGV[2], 'expiresAt', ARGV[4])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[6])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])
end
if ARGV[5] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[5]) end
return {1, version}
`;

/**
 * A {@link SnapshotStore} on Redis. Each run is a hash at `prefix + runId` with the fields
 * `version`, `snapshot` and `expiresAt` (ISO, or empty); runs with an `expiresAt` are also in a
 * sorted set (`expiryKey`, scored by epoch ms) that `listExpired` reads. `put` checks and writes
 * in one Lua script (EVAL), so concurrent writers with the same `expectedVersion` get exactly one
 * winner and `ConflictError` for the rest. `delete` removes the hash and its index entry.
 *
 * The run key and the index key must live on one node: use a plain `Redis` client (or give the
 * prefix a `{hash tag}` on a cluster).
 *
 * @param client A connected ioredis client; the store never closes it.
 */
export function redisStore(client: Redis, options: RedisStoreOptions = {}): SnapshotStore {
  const prefix = options.prefix ?? 'turnkit:run:';
  const expiryKey = options.expiryKey ?? `${prefix}__expiry__`;
  const ttlSeconds = options.ttlSeconds;
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `redisStore: ttlSeconds must be a positive integer, got ${ttlSeconds}.`,
    );
  }
  const runKey = (runId: string, where: string) => {
    const key = prefix + runId;
    if (runId === '' || key === expiryKey) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${where}: run id ${JSON.stringify(runId)} cannot be used: it is empty or names the expiry index ${expiryKey}.`,
      );
    }
    return key;
  };

  return {
    async get(runId): Promise<StoredSnapshot | null> {
      const [version, snapshot] = await client.hmget(runKey(runId, 'redisStore.get'), 'version', 'snapshot');
      if (version == null || snapshot == null) return null;
      return { snapshot, version: Number(version) };
    },

    async put(runId, snapshot, opts) {
      const key = runKey(runId, 'redisStore.put');
      const expiresAt = opts.expiresAt ?? null;
      const expiresAtMs = expiresAt === null ? '' : String(parseExpiresAt(expiresAt));
      const reply = (await client.eval(
        PUT_SCRIPT,
        2,
        key,
        expiryKey,
        opts.expectedVersion === null ? '' : String(opts.expectedVersion),
        snapshot,
        expiresAtMs,
        expiresAt ?? '',
        ttlSeconds === undefined ? '' : String(ttlSeconds),
        runId,
      )) as [number, string | number];
      const [written, version] = reply;
      if (written !== 1) {
        throw staleWriteError(runId, opts.expectedVersion, version === '' ? null : Number(version));
      }
      return { version: Number(version) };
    },

    async delete(runId) {
      await client.multi().del(runKey(runId, 'redisStore.delete')).zrem(expiryKey, runId).exec();
    },

    async listExpired(now) {
      const candidates = await client.zrangebyscore(expiryKey, '-inf', now.getTime());
      if (candidates.length === 0) return [];
      // With ttlSeconds a run's hash can vanish before its index entry: drop those entries lazily.
      const pipeline = client.pipeline();
      for (const runId of candidates) pipeline.exists(prefix + runId);
      const exists = (await pipeline.exec()) ?? [];
      const gone = candidates.filter((_, index) => exists[index]?.[1] === 0);
      if (gone.length > 0) await client.zrem(expiryKey, ...gone);
      return candidates.filter((_, index) => exists[index]?.[1] !== 0);
    },
  };
}

function parseExpiresAt(expiresAt: string): number {
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `redisStore.put: expiresAt ${JSON.stringify(expiresAt)} is not an ISO date.`,
    );
  }
  return ms;
}
