/**
 * `createWorker({ agent, store, queue })` (DESIGN §17): the process that plays background turns.
 * A route that gets `Prefer: respond-async` claims the turn and enqueues it; a worker takes each
 * job and plays the claimed turn through core's `sessions.play`, publishing its events and state
 * to the event hub the handlers' streams read. On SIGTERM it stops taking jobs, lets the turns
 * under way finish for `graceMs`, then hands the rest back to the queue.
 */

import { setTimeout as delay } from 'node:timers/promises';
import {
  type AgentEvent,
  type AnyAgent,
  ConflictError,
  createSessions,
  type SnapshotStore,
  StateError,
  TurnkitError,
} from '@turnkit/core';
import { countOr, createEventHub, type EventHub, hubPublisher } from '../events/index.js';
import type { JobDelivery, TurnJob, TurnQueue } from './types.js';

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  agent: AnyAgent;
  /** The store the handlers use. */
  store: SnapshotStore;
  /** The queue the handlers enqueue to (`createHandler({ queue })`). The worker never closes it. */
  queue: TurnQueue;
  /** The handlers' `leaseMs` (default 60 000): how long a claim lasts without renewal. */
  leaseMs?: number | undefined;
  /** Turns played at once by this worker. Default 1. */
  concurrency?: number | undefined;
  /**
   * Where the turns' events and states are published: the hub the handlers' event streams read
   * (`redisEventHub`, `postgresEventHub`; an in-process hub only when handler and worker share
   * the process). Default: an in-process hub nobody reads.
   */
  eventHub?: EventHub;
  /** Whether `state` messages carry the transcript, as the handlers' `messages`. Default true. */
  messages?: boolean | undefined;
  /** Sees every event of every turn this worker plays. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Failures: a job that will be delivered again (`job` given), a model call's full error, a
   * queue's own error. Default: `console.error`.
   */
  onError?: (error: unknown, job?: TurnJob) => void;
  /** How long `close()` lets the turns under way finish before handing them back. Default 30 000 ms. */
  graceMs?: number | undefined;
  /**
   * Signals on which the worker closes (then the signal is raised again, so the process ends as it
   * would have, unless the app listens for it too). Default `['SIGTERM', 'SIGINT']`; `[]` for none.
   */
  shutdownSignals?: NodeJS.Signals[];
}

/** A running worker. */
export interface TurnWorker {
  /**
   * Stops taking jobs; resolves once the turns under way have finished, or been handed back after
   * `graceMs` (stopped at their next model or tool call, nothing written, the job delivered again).
   */
  close(): Promise<void>;
}

const defaultOnError = (error: unknown, job?: TurnJob) =>
  console.error(`[turnkit/worker]${job ? ` run ${job.runId}:` : ''}`, error);

/**
 * Starts a worker consuming `queue`.
 *
 * A job is played once: of two deliveries (a worker thought dead that was only slow), the second
 * finds the run held and waits until it rests, then completes without playing anything. A worker
 * that died mid-turn leaves its claim to lapse (`leaseMs`); the queue delivers the job again and
 * the next worker takes the turn over, running interrupted tool calls again with the same
 * `ctx.idempotencyKey`. A job that keeps failing (a store that is down) is retried by the queue's
 * policy and then kept as a dead letter (`queue.deadLetters()`); its run stays claimed and is
 * played by its next request or `sessions.retry`.
 *
 * Node only: a worker is a long-lived process consuming a queue, which a serverless function (ended
 * after its response) is not.
 *
 * @example
 * const queue = bullmqQueue({ connection: { host: '127.0.0.1', port: 6379 } });
 * createWorker({ agent, store: redisStore(redis), queue, eventHub: redisEventHub(redis) });
 */
export function createWorker(options: WorkerOptions): TurnWorker {
  if (!options || typeof options.agent?.name !== 'string' || !options.store || !options.queue) {
    throw new TurnkitError('CONFIG_INVALID', 'createWorker needs { agent, store, queue }.');
  }
  // leaseMs is checked by createSessions, as for the handlers.
  const leaseMs = countOr(options.leaseMs, 60_000, 'leaseMs', 'createWorker');
  const graceMs = countOr(options.graceMs, 30_000, 'graceMs', 'createWorker', true);
  const concurrency = countOr(options.concurrency, 1, 'concurrency', 'createWorker');
  const onError = options.onError ?? defaultOnError;
  const sessions = createSessions({ agent: options.agent, store: options.store, leaseMs });
  const publisher = hubPublisher(options.eventHub ?? createEventHub(), {
    userOnEvent: options.onEvent,
    messages: options.messages ?? true,
    onError: (error) => onError(error),
  });
  /** How long a delivery waits for a run another worker holds: it rests, or its lease lapses. */
  const waitMs = 2 * leaseMs;
  const pollMs = Math.max(25, Math.floor(leaseMs / 6));
  const underWay = new Set<AbortController>();

  async function playJob(job: TurnJob, _delivery: JobDelivery): Promise<void> {
    const handBack = new AbortController();
    underWay.add(handBack);
    const started = performance.now();
    try {
      for (;;) {
        try {
          const result = await sessions.play(job, {
            handBack: handBack.signal,
            onEvent: publisher.forRequest(),
            onError: (error) => onError(error, job),
          });
          await publisher.publishState(result);
          return;
        } catch (error) {
          // Handed back: the queue delivers the job again, to whichever worker is up.
          if (handBack.signal.aborted) throw error;
          if (error instanceof StateError && error.code === 'RUN_NOT_FOUND') {
            onError(error, job);
            return;
          }
          // Another worker holds the run: wait for it to rest (then there is nothing to play) or
          // for its lease to lapse (then this delivery takes the turn over).
          if (!(error instanceof ConflictError) || performance.now() - started > waitMs) {
            onError(error, job);
            throw error;
          }
          await delay(pollMs, undefined, { signal: handBack.signal }).catch(() => {});
          if (handBack.signal.aborted) throw error;
        }
      }
    } finally {
      underWay.delete(handBack);
    }
  }

  const consumer = options.queue.consume(playJob, { concurrency, onError: (error) => onError(error) });
  const signals = options.shutdownSignals ?? ['SIGTERM', 'SIGINT'];
  let closing: Promise<void> | undefined;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const signal of signals) process.off(signal, onSignal);
      const handBackAll = setTimeout(() => {
        for (const controller of underWay) controller.abort();
      }, graceMs);
      try {
        await consumer.close();
      } finally {
        clearTimeout(handBackAll);
      }
    })();
    return closing;
  };

  function onSignal(signal: NodeJS.Signals): void {
    close().then(
      () => {
        // Ends the process as the signal would have, unless the app handles it as well.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      },
      (error: unknown) => {
        onError(error);
        process.exitCode = 1;
      },
    );
  }
  for (const signal of signals) process.once(signal, onSignal);

  return { close };
}
