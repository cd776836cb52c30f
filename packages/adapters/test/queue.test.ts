/**
 * The turn queues (DESIGN §17): `bullmqQueue` on a real Redis, and `memoryQueue`, held to the same
 * rules — one job per claim, retries, dead letters, consumers that settle their jobs on close.
 */
import { randomUUID } from 'node:crypto';
import { TurnkitError } from '@turnkit/core';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { bullmqQueue } from '../src/queue/bullmq.js';
import { memoryQueue } from '../src/queue/memory.js';
import type { JobDelivery, TurnJob, TurnQueue } from '../src/queue/types.js';
import { serverUrl } from './store-servers.js';

const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

const opened: TurnQueue[] = [];
const prefixes: string[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((queue) => queue.close()));
  if (redisUrl && prefixes.length > 0) {
    const redis = new Redis(redisUrl);
    for (const prefix of prefixes.splice(0)) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  }
});

/** Resolves once `count` deliveries have been seen. */
function deliveries(count: number) {
  const seen: Array<{ job: TurnJob; delivery: JobDelivery }> = [];
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    seen,
    all,
    record(job: TurnJob, delivery: JobDelivery) {
      seen.push({ job, delivery });
      if (seen.length === count) done();
    },
  };
}

const job = (runId: string, version = 2): TurnJob => ({ runId, owner: `owner-${runId}`, version });

type Make = (options?: { attempts?: number; backoffMs?: number }) => TurnQueue;

const kinds: Array<[name: string, make: Make | null]> = [
  ['memoryQueue', (options) => memoryQueue({ backoffMs: 10, ...options })],
  [
    'bullmqQueue',
    redisUrl
      ? (options) => {
          const prefix = `turnkit-test-${randomUUID()}`;
          prefixes.push(prefix);
          const { hostname, port } = new URL(redisUrl);
          return bullmqQueue({
            connection: { host: hostname, port: Number(port || 6379) },
            prefix,
            backoffMs: 10,
            lockMs: 2000,
            ...options,
          });
        }
      : null,
  ],
];

for (const [name, make] of kinds) {
  describe.skipIf(!make)(name, () => {
    const open: Make = (options) => {
      const queue = make!(options);
      opened.push(queue);
      return queue;
    };

    it('delivers each job once, in order, with its run, owner and version', async () => {
      const queue = open();
      const got = deliveries(2);
      const consumer = queue.consume(async (turn, delivery) => got.record(turn, delivery));
      await queue.enqueue(job('run_a'));
      await queue.enqueue(job('run_b', 7));
      await got.all;
      await consumer.close();
      expect(got.seen.map((item) => item.job)).toEqual([job('run_a'), job('run_b', 7)]);
      expect(got.seen.map((item) => item.delivery.attempt)).toEqual([1, 1]);
    });

    it('adds nothing for a claim already waiting (a retried request)', async () => {
      const queue = open();
      await queue.enqueue(job('run_a'));
      await queue.enqueue(job('run_a'));
      await queue.enqueue(job('run_a', 3));
      const got = deliveries(2);
      const consumer = queue.consume(async (turn, delivery) => got.record(turn, delivery));
      await got.all;
      // Long enough for a duplicate to arrive, had one been added.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await consumer.close();
      expect(got.seen.map((item) => item.job.version)).toEqual([2, 3]);
    });

    it('retries a job whose handler fails, then completes it', async () => {
      const queue = open({ attempts: 3 });
      const got = deliveries(3);
      const consumer = queue.consume(async (turn, delivery) => {
        got.record(turn, delivery);
        if (delivery.attempt < 3) throw new Error(`store unreachable (${delivery.attempt})`);
      });
      await queue.enqueue(job('run_a'));
      await got.all;
      await consumer.close();
      expect(got.seen.map((item) => item.delivery.attempt)).toEqual([1, 2, 3]);
      expect(await queue.deadLetters()).toEqual([]);
    });

    it('keeps a job that used up its attempts as a dead letter, with the last failure', async () => {
      const queue = open({ attempts: 2 });
      const got = deliveries(2);
      const consumer = queue.consume(async (turn, delivery) => {
        got.record(turn, delivery);
        throw new Error(`attempt ${delivery.attempt} failed`);
      });
      await queue.enqueue(job('run_dead'));
      await got.all;
      let dead = await queue.deadLetters();
      for (let tries = 0; dead.length === 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        dead = await queue.deadLetters();
      }
      await consumer.close();
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ job: job('run_dead'), attempts: 2, reason: 'attempt 2 failed' });
      expect(dead[0]!.failedAt).toBeInstanceOf(Date);
    });

    it('lets the job under way settle when its consumer closes', async () => {
      const queue = open();
      let release: () => void = () => {};
      const started = deliveries(1);
      let finished = false;
      const consumer = queue.consume(async (turn, delivery) => {
        started.record(turn, delivery);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        finished = true;
      });
      await queue.enqueue(job('run_slow'));
      await started.all;
      const closing = consumer.close();
      release();
      await closing;
      expect(finished).toBe(true);
    });
  });
}

describe('bullmqQueue options', () => {
  it('refuses an ioredis client that could give up on a command, and bad numbers', () => {
    const client = new Redis({ lazyConnect: true });
    const refused = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return TurnkitError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'accepted';
    };
    expect(refused(() => bullmqQueue({ connection: client }))).toMatch(
      /^CONFIG_INVALID: .*maxRetriesPerRequest: null/,
    );
    const patient = new Redis({ lazyConnect: true, maxRetriesPerRequest: null });
    expect(refused(() => bullmqQueue({ connection: patient }))).toBe('accepted');
    expect(refused(() => bullmqQueue({ connection: {}, attempts: 0 }))).toMatch(
      /^CONFIG_INVALID: .*attempts/,
    );
    expect(refused(() => bullmqQueue({ connection: {}, name: 'a:b' }))).toMatch(/^CONFIG_INVALID: .*name/);
    expect(refused(() => bullmqQueue(undefined as never))).toMatch(/^CONFIG_INVALID: .*connection/);
    client.disconnect();
    patient.disconnect();
  });

  it('gives up on an enqueue Redis cannot take within enqueueTimeoutMs, with QUEUE_UNAVAILABLE', async () => {
    // Port 1: nothing listens, and BullMQ's own connection would wait for it forever.
    const queue = bullmqQueue({ connection: { host: '127.0.0.1', port: 1 }, enqueueTimeoutMs: 200 });
    const error = await queue
      .enqueue({ runId: 'run_down', owner: 'owner', version: 1 })
      .catch((caught: unknown) => caught);
    expect(TurnkitError.isInstance(error) && error.code).toBe('QUEUE_UNAVAILABLE');
    await queue.close();
  });
});
