/**
 * The turn queues (DESIGN §17): `memoryQueue`, and `bullmqQueue` on bullmq 5 (the lock's `bullmq`)
 * and a real Redis, held to the same rules (queue-contract.ts). queue-bullmq6.test.ts runs them on
 * bullmq 6.
 */
import { describe, expect, it } from 'vitest';
import { memoryQueue } from '../src/queue/memory.js';
import {
  bullmqRecorded,
  describeBullmqOptions,
  describeQueueContract,
  redisUrl,
  testBullmqQueue,
} from './queue-contract.js';

describe('the bullmq this file runs', () => {
  it.skipIf(!redisUrl)('is bullmq 5, as BullMQ itself records in Redis', async () => {
    expect(await bullmqRecorded()).toMatch(/^bullmq:5\./);
  });
});

describeQueueContract('memoryQueue', (options) => memoryQueue({ backoffMs: 10, ...options }));
describeQueueContract('bullmqQueue (bullmq 5)', redisUrl ? testBullmqQueue : null);
describeBullmqOptions('bullmq 5');
