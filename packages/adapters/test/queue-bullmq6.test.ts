/**
 * bullmq 6, the highest major of the peer range `^5 || ^6` (DESIGN §19, §25): the queue contract and
 * `bullmqQueue`'s options (queue-contract.ts) on bullmq 6, installed as the alias `bullmq-6`, which
 * stands in for `bullmq` wherever this file's modules load it (src/queue/bullmq.ts included); and on
 * an ioredis 6 client. queue.test.ts runs the same on bullmq 5.
 */
import { randomUUID } from 'node:crypto';
import { Redis as Redis6 } from 'ioredis-6';
import { describe, expect, it, vi } from 'vitest';
import { bullmqQueue } from '../src/queue/bullmq.js';
import type { TurnJob } from '../src/queue/types.js';
import {
  bullmqRecorded,
  describeBullmqOptions,
  describeQueueContract,
  redisUrl,
  testBullmqQueue,
  track,
} from './queue-contract.js';

vi.mock('bullmq', () => import('bullmq-6'));

describe('the bullmq this file runs', () => {
  it('is bullmq 6 where src/queue/bullmq.ts imports bullmq', async () => {
    const { Queue } = await import('bullmq');
    const { Queue: Queue6 } = await import('bullmq-6');
    expect(Queue).toBe(Queue6);
    const { default: manifest } = await import('bullmq-6/package.json', { with: { type: 'json' } });
    expect(manifest.version).toMatch(/^6\./);
  });

  it.skipIf(!redisUrl)('is bullmq 6, as BullMQ itself records in Redis', async () => {
    expect(await bullmqRecorded()).toMatch(/^bullmq:6\./);
  });
});

describeQueueContract('bullmqQueue (bullmq 6)', redisUrl ? testBullmqQueue : null);
describeBullmqOptions('bullmq 6');

describe.skipIf(!redisUrl)('bullmqQueue (bullmq 6) on an ioredis 6 client', () => {
  it('takes the client as its connection and delivers a job', async () => {
    const client = new Redis6(redisUrl!, { maxRetriesPerRequest: null });
    const prefix = `turnkit-test-${randomUUID()}`;
    const queue = track(bullmqQueue({ connection: client as never, prefix, backoffMs: 10, lockMs: 2000 }));
    const turn: TurnJob = { runId: 'run_ioredis6', owner: 'owner-a', version: 2 };
    const got = new Promise<TurnJob>((resolve) => {
      queue.consume(async (delivered) => resolve(delivered));
    });
    await queue.enqueue(turn);
    expect(await got).toEqual(turn);
    await queue.close();
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });
});
