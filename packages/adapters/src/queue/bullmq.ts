/**
 * `bullmqQueue({ connection })` (DESIGN §17): background turns on BullMQ (Redis). BullMQ is an
 * optional peer (major 5 or 6: the classes, options and job fields used here are the same in both),
 * loaded on first use, so an app that never builds this queue never needs it. The types are read
 * from bullmq 5; bullmq 6 accepts the same options.
 */

import { TurnkitError } from '@turnkit/core';
import type { ConnectionOptions, Job, Queue, Worker } from 'bullmq';
import { countOr } from '../events/index.js';
import {
  type ConsumeOptions,
  type DeadLetter,
  type JobHandler,
  jobIdOf,
  type QueueConsumer,
  readJob,
  type TurnJob,
  type TurnQueue,
} from './types.js';

/** Options of {@link bullmqQueue}. */
export interface BullmqQueueOptions {
  /**
   * Where Redis is: ioredis options (BullMQ opens the connections it needs from them, e.g.
   * `{ host: '127.0.0.1', port: 6379 }`), or an ioredis client of yours, which must be created with
   * `maxRetriesPerRequest: null` (a worker blocks on Redis and must never give up on a command).
   */
  connection: ConnectionOptions;
  /** The queue's name. Default `turnkit-turns`. */
  name?: string | undefined;
  /** BullMQ's key prefix in Redis. Default `bull`. */
  prefix?: string | undefined;
  /** Deliveries of a job before it becomes a dead letter. Default 5. */
  attempts?: number | undefined;
  /** The first retry's delay; each next one doubles it. Default 1000 ms. */
  backoffMs?: number | undefined;
  /**
   * How long a consumer's hold on a job lasts unless renewed (BullMQ renews it at half this while
   * the job plays). A job whose worker died is delivered again within about twice this. Default
   * 30 000 ms.
   */
  lockMs?: number | undefined;
  /** Dead letters kept (the oldest go first). Default 1000. */
  keepDeadLetters?: number | undefined;
  /**
   * How long `enqueue` waits for Redis before it gives up with `QUEUE_UNAVAILABLE` (BullMQ itself
   * waits for as long as Redis is down). A handler then plays the turn in the request. Default 5 000 ms.
   */
  enqueueTimeoutMs?: number | undefined;
  /**
   * Called when the queue's own connection fails (Redis unreachable, a lost connection); BullMQ keeps
   * reconnecting. Consumers report theirs to `consume`'s `onError`. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

const invalid = (message: string) => new TurnkitError('CONFIG_INVALID', `bullmqQueue: ${message}`);

/** Whether `connection` is a Redis client (it has `duplicate`) rather than options. */
function isClient(connection: object): connection is {
  options?: { maxRetriesPerRequest?: unknown };
  defineCommand?: unknown;
} {
  return typeof (connection as { duplicate?: unknown }).duplicate === 'function';
}

const reportError = (error: unknown) => console.error('[turnkit/bullmq] queue error:', error);

function checkConnection(connection: unknown): asserts connection is ConnectionOptions {
  if (typeof connection !== 'object' || connection === null) {
    throw invalid('connection must be ioredis options ({ host, port }) or an ioredis client.');
  }
  if (!isClient(connection)) return;
  // BullMQ 6 also takes node-redis and Bun clients (told apart by ioredis's `defineCommand`); the
  // worker's blocking reads and lock renewals here are run and tested on ioredis only.
  if (typeof connection.defineCommand !== 'function') {
    throw invalid(
      'connection is a Redis client that is not ioredis (node-redis or Bun?): pass ioredis options ({ host, port }) or an ioredis client created with maxRetriesPerRequest: null.',
    );
  }
  if (connection.options?.maxRetriesPerRequest !== null) {
    throw invalid(
      'an ioredis client passed as connection must be created with maxRetriesPerRequest: null (a worker blocks on Redis and must not give up on a command); or pass ioredis options and let BullMQ open its connections.',
    );
  }
}

async function loadBullmq(): Promise<typeof import('bullmq')> {
  try {
    return await import('bullmq');
  } catch (error) {
    throw new TurnkitError('CONFIG_INVALID', 'bullmqQueue needs the bullmq package: npm install bullmq', {
      cause: error,
    });
  }
}

/**
 * A {@link TurnQueue} on BullMQ: one job per claimed turn (id `<runId>@<version>`, so enqueueing the
 * same claim twice adds nothing), retried with exponential backoff, kept as a dead letter after its
 * last attempt. A consumer's hold on a job is renewed while it plays; when a worker dies, BullMQ's
 * stalled-job check delivers the job again and the run's lease rules decide what the next worker
 * does.
 *
 * Node only: BullMQ runs on ioredis (TCP sockets) and Node's timers and events, which Workers and
 * Edge runtimes lack.
 *
 * @example
 * const queue = bullmqQueue({ connection: { host: '127.0.0.1', port: 6379 } });
 * const handler = createHandler({ agent, store, queue }); // Prefer: respond-async → 202
 * const worker = createWorker({ agent, store, queue });    // in the worker processes
 */
export function bullmqQueue(options: BullmqQueueOptions): TurnQueue {
  checkConnection(options?.connection);
  const { connection } = options;
  const name = options.name ?? 'turnkit-turns';
  if (typeof name !== 'string' || name === '' || name.includes(':')) {
    throw invalid(`name must be a non-empty string without ":", got ${JSON.stringify(name)}.`);
  }
  const attempts = countOr(options.attempts, 5, 'attempts', 'bullmqQueue');
  const backoffMs = countOr(options.backoffMs, 1000, 'backoffMs', 'bullmqQueue');
  const lockMs = countOr(options.lockMs, 30_000, 'lockMs', 'bullmqQueue');
  const keepDeadLetters = countOr(options.keepDeadLetters, 1000, 'keepDeadLetters', 'bullmqQueue');
  const enqueueTimeoutMs = countOr(options.enqueueTimeoutMs, 5000, 'enqueueTimeoutMs', 'bullmqQueue');
  const prefix = options.prefix === undefined ? {} : { prefix: options.prefix };
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw invalid(`onError must be a function (error) => void, got ${typeof options.onError}.`);
  }
  const onQueueError = options.onError ?? reportError;

  let queue: Promise<Queue> | undefined;
  const queueOf = () => {
    queue ??= loadBullmq().then(({ Queue }) => {
      const opened = new Queue(name, {
        connection,
        ...prefix,
        defaultJobOptions: {
          attempts,
          backoff: { type: 'exponential', delay: backoffMs },
          removeOnComplete: true,
          removeOnFail: { count: keepDeadLetters },
        },
      });
      // BullMQ 6 emits the connection's failures on the queue (5 mostly kept them to itself); with
      // no listener it prints them itself, so they go where the application said.
      opened.on('error', onQueueError);
      return opened;
    });
    return queue;
  };

  const consumers = new Set<Promise<Worker>>();

  return {
    async enqueue(job: TurnJob) {
      const added = queueOf().then((opened) => opened.add('turn', job, { jobId: jobIdOf(job) }));
      // Given up on below, a late add must not become an unhandled rejection (and if it lands, the
      // claim's version lets only one of the worker and the request play the turn).
      added.catch(() => undefined);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new TurnkitError(
                'QUEUE_UNAVAILABLE',
                `bullmqQueue: the turn of run ${job.runId} was not enqueued within ${enqueueTimeoutMs} ms. Check that Redis is reachable; a handler plays the turn in the request meanwhile.`,
              ),
            ),
          enqueueTimeoutMs,
        );
      });
      try {
        await Promise.race([added, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    consume(handler: JobHandler, consumeOptions: ConsumeOptions = {}): QueueConsumer {
      const concurrency = countOr(consumeOptions.concurrency, 1, 'concurrency', 'bullmqQueue');
      const onError = consumeOptions.onError ?? reportError;
      const started = loadBullmq().then(({ Worker, UnrecoverableError }) => {
        const worker = new Worker(
          name,
          async (job: Job) => {
            const turn = readJob(job.data);
            if (!turn)
              throw new UnrecoverableError(
                `job ${job.id} is not a TurnKit turn: ${JSON.stringify(job.data)}`,
              );
            await handler(turn, { attempt: job.attemptsStarted, id: String(job.id) });
          },
          {
            connection,
            ...prefix,
            concurrency,
            lockDuration: lockMs,
            stalledInterval: lockMs,
            // A job whose worker died is delivered again, up to its attempts.
            maxStalledCount: attempts,
          },
        );
        worker.on('error', onError);
        return worker;
      });
      consumers.add(started);
      started.catch(onError);
      return {
        async close() {
          consumers.delete(started);
          await (await started).close();
        },
      };
    },

    async deadLetters(limit = 100): Promise<DeadLetter[]> {
      const jobs = await (await queueOf()).getFailed(0, countOr(limit, 100, 'limit', 'bullmqQueue') - 1);
      return jobs.flatMap((job): DeadLetter[] => {
        const turn = readJob(job.data);
        if (!turn) return [];
        return [
          {
            job: turn,
            id: String(job.id),
            attempts: job.attemptsMade,
            reason: job.failedReason ?? '',
            failedAt: new Date(job.finishedOn ?? job.timestamp),
          },
        ];
      });
    },

    async close() {
      await Promise.all([...consumers].map(async (worker) => (await worker).close()));
      consumers.clear();
      if (queue) await (await queue).close();
    },
  };
}
