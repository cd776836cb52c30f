/**
 * The rules every turn queue keeps (DESIGN §17) — one job per claim, retries, dead letters,
 * consumers that settle their jobs on close — and `bullmqQueue`'s own options, written once and run
 * by queue.test.ts (memoryQueue, bullmq 5) and queue-bullmq6.test.ts (bullmq 6) on a real Redis.
 */
import { randomUUID } from 'node:crypto';
import { TurnkitError } from '@turnkit/core';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bullmqQueue } from '../src/queue/bullmq.js';
import type { BullmqQueueOptions } from '../src/queue/index.js';
import type { JobDelivery, TurnJob, TurnQueue } from '../src/queue/types.js';
import { serverUrl } from './store-servers.js';

/** The loopback Redis of the BullMQ suites, or undefined (they skip). */
export const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

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

export const job = (runId: string, version = 2): TurnJob => ({ runId, owner: `owner-${runId}`, version });

/** Makes a queue of the kind under test. */
export type MakeQueue = (options?: Partial<BullmqQueueOptions>) => TurnQueue;

/** A `bullmqQueue` on the loopback Redis under a key prefix of its own, removed after the test. */
export function testBullmqQueue(options: Partial<BullmqQueueOptions> = {}): TurnQueue {
  const prefix = `turnkit-test-${randomUUID()}`;
  prefixes.push(prefix);
  const { hostname, port } = new URL(redisUrl!);
  const queue = bullmqQueue({
    connection: { host: hostname, port: Number(port || 6379) },
    prefix,
    backoffMs: 10,
    lockMs: 2000,
    ...options,
  });
  opened.push(queue);
  return queue;
}

/**
 * The library BullMQ records in Redis for a queue (`bullmq:<version>`, the meta hash's `version`)
 * once it has enqueued there: which major a suite really drove, whatever the test imported.
 */
export async function bullmqRecorded(): Promise<string | null> {
  const queue = testBullmqQueue();
  await queue.enqueue(job('run_version'));
  const redis = new Redis(redisUrl!);
  try {
    return await redis.hget(`${prefixes.at(-1)}:turnkit-turns:meta`, 'version');
  } finally {
    redis.disconnect();
  }
}

/** Closes `queue` after the test. */
export function track(queue: TurnQueue): TurnQueue {
  opened.push(queue);
  return queue;
}

/** The contract of a {@link TurnQueue}, on the queues `make` builds. */
export function describeQueueContract(name: string, make: MakeQueue | null): void {
  describe.skipIf(!make)(name, () => {
    const open: MakeQueue = (options) => track(make!(options));

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

/** `bullmqQueue`'s checks of its options, and its enqueue timeout, on the BullMQ major under test. */
export function describeBullmqOptions(major: string): void {
  describe(`bullmqQueue options (${major})`, () => {
    const refused = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return TurnkitError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'accepted';
    };

    it('refuses an ioredis client that could give up on a command, and bad numbers', () => {
      const client = new Redis({ lazyConnect: true });
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
      expect(refused(() => bullmqQueue({ connection: {}, onError: 'log' as never }))).toMatch(
        /^CONFIG_INVALID: .*onError must be a function/,
      );
      client.disconnect();
      patient.disconnect();
    });

    it('refuses a Redis client that is not ioredis (a node-redis client, as BullMQ 6 would take)', () => {
      // node-redis's shape as BullMQ 6 detects it: `sendCommand` and `isOpen`, no `defineCommand`.
      const nodeRedis = { duplicate: () => nodeRedis, sendCommand: async () => null, isOpen: false };
      expect(refused(() => bullmqQueue({ connection: nodeRedis as never }))).toMatch(
        /^CONFIG_INVALID: bullmqQueue: connection is a Redis client that is not ioredis .*pass ioredis options/,
      );
    });

    it('gives up on an enqueue Redis cannot take within enqueueTimeoutMs, with QUEUE_UNAVAILABLE, reporting to onError only', async () => {
      const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
      const reported: unknown[] = [];
      // Port 1: nothing listens, and BullMQ's own connection would wait for it forever.
      const queue = bullmqQueue({
        connection: { host: '127.0.0.1', port: 1 },
        enqueueTimeoutMs: 200,
        onError: (error) => reported.push(error),
      });
      const error = await queue
        .enqueue({ runId: 'run_down', owner: 'owner', version: 1 })
        .catch((caught: unknown) => caught);
      expect(TurnkitError.isInstance(error) && error.code).toBe('QUEUE_UNAVAILABLE');
      expect(TurnkitError.isInstance(error) && error.message).toMatch(
        /run run_down was not enqueued within 200 ms\. Check that Redis is reachable/,
      );
      await queue.close();
      expect(reported.length).toBeGreaterThan(0);
      expect(reported.every((item) => /ECONNREFUSED/.test(String(item)))).toBe(true);
      expect(printed).not.toHaveBeenCalled();
      printed.mockRestore();
    });
  });
}
