/**
 * ioredis 6, the highest major of the peer range `^5 || ^6` (DESIGN §19): the Redis event hub,
 * the Redis store and the BullMQ queue run their contracts on an ioredis 6 client, installed as
 * the alias `ioredis-6`. ioredis 5 runs the same suites in their own files (the lock's `ioredis`).
 * The alias's `Redis` is another declaration of the same class, so it is cast to ioredis 5's type.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis-6';
import { afterAll, describe, expect, it } from 'vitest';
import { redisEventHub } from '../src/events/hubs/redis.js';
import { bullmqQueue } from '../src/queue/bullmq.js';
import type { TurnJob } from '../src/queue/types.js';
import { redisStore } from '../src/stores/redis-store.js';
import { describeSharedHubContract } from './event-hub-contract.js';
import { describeStoreContract, serverClock, serverUrl } from './store-contract.js';

const url = serverUrl('TURNKIT_REDIS_URL', 'Redis');
const prefix = `turnkit-test-ioredis6:${randomUUID()}:`;
const clients: Redis6[] = [];

function connect(options: { maxRetriesPerRequest?: number | null } = {}): Redis {
  const client = new Redis6(url!, { maxRetriesPerRequest: 1, ...options });
  clients.push(client);
  return client as unknown as Redis;
}

afterAll(async () => {
  if (clients.length === 0) return;
  const keys = await clients[0]!.keys(`${prefix}*`);
  if (keys.length > 0) await clients[0]!.del(...keys);
  await Promise.all(clients.map((client) => client.quit()));
});

describe.skipIf(!url)('on an ioredis 6 client', () => {
  it('is ioredis 6', async () => {
    const { default: manifest } = await import('ioredis-6/package.json', { with: { type: 'json' } });
    expect(manifest.version).toMatch(/^6\./);
  });

  describeSharedHubContract('redisEventHub (ioredis 6)', async () => ({
    open: async (errors) =>
      redisEventHub(connect(), { prefix: `${prefix}events:`, onError: (error) => errors.push(error) }),
    teardown: async () => {},
  }));

  describeStoreContract('redisStore (ioredis 6)', async () => {
    const storePrefix = `${prefix}store:${randomUUID()}:`;
    return {
      store: redisStore(connect(), { prefix: storePrefix }),
      peer: redisStore(connect(), { prefix: storePrefix }),
      clock: serverClock(),
      teardown: async () => {},
    };
  });

  it('bullmqQueue takes an ioredis 6 client as its connection and delivers a job', async () => {
    const queue = bullmqQueue({
      connection: connect({ maxRetriesPerRequest: null }),
      prefix: `${prefix}bull`,
      backoffMs: 10,
      lockMs: 2000,
    });
    const job: TurnJob = { runId: 'run_ioredis6', owner: 'owner-a', version: 2 };
    const got = new Promise<TurnJob>((resolve) => {
      queue.consume(async (turn) => resolve(turn));
    });
    await queue.enqueue(job);
    expect(await got).toEqual(job);
    await queue.close();
  });
});
