/**
 * The queue behind background turns (DESIGN §17): a route that gets `Prefer: respond-async` claims
 * the run (as any turn does, running nothing yet), enqueues a {@link TurnJob} naming that claim and
 * answers `202`; a worker takes the job and plays the claimed turn. The interface is small so that
 * queues other than BullMQ can follow.
 */

/** One claimed turn to play: the run, and the claim a route wrote for it. */
export interface TurnJob {
  runId: string;
  /** The lease owner the claim was written with: the worker plays under it. */
  owner: string;
  /** The store version of the claim: a job whose run has moved past it has nothing left to do. */
  version: number;
}

/** What a consumer's handler learns about the delivery it is given. */
export interface JobDelivery {
  /** 1 for the first delivery, then 2, 3… (retries, and deliveries after a worker died). */
  attempt: number;
  /** The queue's own id of the job. */
  id: string;
}

/**
 * Plays a job. Resolving completes it; rejecting retries it by the queue's policy (attempts,
 * backoff) and, after the last attempt, leaves it with the dead letters.
 */
export type JobHandler = (job: TurnJob, delivery: JobDelivery) => Promise<void>;

/** Options of {@link TurnQueue.consume}. */
export interface ConsumeOptions {
  /** Jobs played at once by this consumer. Default 1. */
  concurrency?: number;
  /** Called when the queue itself fails (a lost connection…); the consumer keeps going. */
  onError?: (error: unknown) => void;
}

/** A running consumer. */
export interface QueueConsumer {
  /**
   * Stops taking jobs and resolves once the jobs under way have settled (resolved, or rejected and
   * so handed back to the queue for another delivery).
   */
  close(): Promise<void>;
}

/** A job that used up its attempts. */
export interface DeadLetter {
  job: TurnJob;
  id: string;
  attempts: number;
  /** The last failure's message. */
  reason: string;
  failedAt: Date;
}

/** A durable queue of turns. */
export interface TurnQueue {
  /**
   * Adds a job; resolves once the queue holds it. Adding a job for the same run and version again
   * is a no-op while the first is waiting or under way (a retried request enqueues nothing twice).
   */
  enqueue(job: TurnJob): Promise<void>;
  /** Starts a consumer calling `handler` for each job. */
  consume(handler: JobHandler, options?: ConsumeOptions): QueueConsumer;
  /** The jobs that used up their attempts, newest first. */
  deadLetters(limit?: number): Promise<DeadLetter[]>;
  /** Closes the queue's connections (consumers first: close them before). */
  close(): Promise<void>;
}

/** The id a queue gives a job: one per claimed turn. Run ids never hold `@`. */
export function jobIdOf(job: TurnJob): string {
  return `${job.runId}@${job.version}`;
}

/** Reads a job back from a queue's payload, refusing anything else. */
export function readJob(data: unknown): TurnJob | null {
  if (typeof data !== 'object' || data === null) return null;
  const { runId, owner, version } = data as Record<string, unknown>;
  if (typeof runId !== 'string' || typeof owner !== 'string' || !Number.isSafeInteger(version)) return null;
  return { runId, owner, version: version as number };
}
