/**
 * `memoryQueue()`: background turns within one process (development, tests, a single server).
 * Jobs live in memory: a process that stops loses the ones it holds (the runs stay claimed and are
 * finished by their next request or `sessions.retry`). Same rules as {@link bullmqQueue}: one job
 * per claim, retries with doubling backoff, dead letters after the last attempt.
 */

import { checkCount } from '../events/index.js';
import {
  type ConsumeOptions,
  type DeadLetter,
  type JobHandler,
  jobIdOf,
  type QueueConsumer,
  type TurnJob,
  type TurnQueue,
} from './types.js';

/** Options of {@link memoryQueue}. */
export interface MemoryQueueOptions {
  /** Deliveries of a job before it becomes a dead letter. Default 5. */
  attempts?: number | undefined;
  /** The first retry's delay; each next one doubles it. Default 1000 ms. */
  backoffMs?: number | undefined;
}

interface Entry {
  job: TurnJob;
  id: string;
  attempt: number;
}

/**
 * A {@link TurnQueue} in this process's memory.
 *
 * @example
 * const queue = memoryQueue();
 * const handler = createHandler({ agent, store, queue });
 * const worker = createWorker({ agent, store, queue }); // the same process
 */
export function memoryQueue(options: MemoryQueueOptions = {}): TurnQueue {
  const attempts = options.attempts ?? 5;
  const backoffMs = options.backoffMs ?? 1000;
  checkCount(attempts, 'attempts', 'memoryQueue');
  checkCount(backoffMs, 'backoffMs', 'memoryQueue', true);

  const waiting: Entry[] = [];
  /** Ids waiting, backing off or under way: enqueueing one of them again adds nothing. */
  const known = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const dead: DeadLetter[] = [];
  const consumers = new Set<() => void>();
  const wake = () => {
    for (const pull of consumers) pull();
  };

  return {
    async enqueue(job) {
      const id = jobIdOf(job);
      if (known.has(id)) return;
      known.add(id);
      waiting.push({ job: { ...job }, id, attempt: 0 });
      wake();
    },

    consume(handler: JobHandler, consumeOptions: ConsumeOptions = {}): QueueConsumer {
      const concurrency = consumeOptions.concurrency ?? 1;
      const active = new Set<Promise<void>>();
      let closed = false;
      const play = async (entry: Entry) => {
        entry.attempt++;
        try {
          await handler(entry.job, { attempt: entry.attempt, id: entry.id });
          known.delete(entry.id);
        } catch (error) {
          if (entry.attempt >= attempts) {
            known.delete(entry.id);
            const reason = error instanceof Error ? error.message : String(error);
            dead.unshift({
              job: entry.job,
              id: entry.id,
              attempts: entry.attempt,
              reason,
              failedAt: new Date(),
            });
            return;
          }
          const timer = setTimeout(
            () => {
              timers.delete(timer);
              waiting.push(entry);
              wake();
            },
            backoffMs * 2 ** (entry.attempt - 1),
          );
          timers.add(timer);
        }
      };
      const pull = () => {
        while (!closed && active.size < concurrency && waiting.length > 0) {
          const run = play(waiting.shift()!).finally(() => {
            active.delete(run);
            pull();
          });
          active.add(run);
        }
      };
      consumers.add(pull);
      queueMicrotask(pull);
      return {
        async close() {
          closed = true;
          consumers.delete(pull);
          while (active.size > 0) await Promise.all(active);
        },
      };
    },

    async deadLetters(limit = 100) {
      return dead.slice(0, limit);
    },

    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      consumers.clear();
    },
  };
}
