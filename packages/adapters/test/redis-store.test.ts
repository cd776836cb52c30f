import { randomUUID } from 'node:crypto';
import { TurnkitError } from '@turnkit/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore } from '../src/redis-store.js';
import { describeStoreContract, freshRunId, serverUrl } from './store-contract.js';

const url = serverUrl('TURNKIT_REDIS_URL', 'Redis');

/** A client and a key prefix of its own, so parallel test runs never see each other's keys. */
async function connect(): Promise<{ client: Redis; prefix: string; teardown: () => Promise<void> }> {
  const client = new Redis(url!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const prefix = `turnkit-test:${randomUUID()}:`;
  const teardown = async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  };
  return { client, prefix, teardown };
}

describe.skipIf(!url)('redisStore', () => {
  describeStoreContract('redisStore', async () => {
    const { client, prefix, teardown } = await connect();
    return { store: redisStore(client, { prefix }), teardown };
  });

  describe('layout and options', () => {
    let connection: Awaited<ReturnType<typeof connect>>;
    beforeAll(async () => {
      connection = await connect();
    });
    afterAll(async () => {
      await connection.teardown();
    });

    it('keeps a run as a hash { version, snapshot, expiresAt } and indexes its expiry', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const runId = freshRunId('layout');
      await store.put(runId, '{"a":1}', { expectedVersion: null, expiresAt: '2030-01-01T00:00:00.000Z' });
      expect(await client.hgetall(`${prefix}${runId}`)).toEqual({
        version: '1',
        snapshot: '{"a":1}',
        expiresAt: '2030-01-01T00:00:00.000Z',
      });
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBe(
        String(Date.parse('2030-01-01T00:00:00.000Z')),
      );
      await store.delete(runId);
      expect(await client.exists(`${prefix}${runId}`)).toBe(0);
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBeNull();
    });

    it('sets a TTL on every write when ttlSeconds is given, and forgets expired index entries', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix, ttlSeconds: 60 });
      const runId = freshRunId('ttl');
      await store.put(runId, 'x', { expectedVersion: null, expiresAt: '2000-01-01T00:00:00.000Z' });
      const ttl = await client.ttl(`${prefix}${runId}`);
      expect(ttl).toBeGreaterThan(50);
      expect(ttl).toBeLessThanOrEqual(60);
      // As if Redis had expired the hash: the index entry must not come back as a run.
      await client.del(`${prefix}${runId}`);
      expect(await store.listExpired!(new Date())).not.toContain(runId);
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBeNull();
    });

    it('refuses bad options and run ids with TurnkitError CONFIG_INVALID', async () => {
      const { client, prefix } = connection;
      expect(() => redisStore(client, { ttlSeconds: 0 })).toThrow(TurnkitError);
      expect(() => redisStore(client, { ttlSeconds: 1.5 })).toThrow(/positive integer/);
      const store = redisStore(client, { prefix });
      await expect(store.get('')).rejects.toThrow(TurnkitError);
      await expect(store.put('__expiry__', 'x', { expectedVersion: null })).rejects.toThrow(/expiry index/);
      await expect(store.put('bad-date', 'x', { expectedVersion: null, expiresAt: 'soon' })).rejects.toThrow(
        /not an ISO date/,
      );
    });
  });
});
