/**
 * A worker's hold on a run while it plays a turn (DESIGN §12): it renews its lease every
 * `leaseMs / 3`, and it stops holding the run — no further model or tool call starts — as soon as
 * the store refuses a renewal or a write, or when it cannot be sure its lease is still live (no
 * renewal confirmed for `leaseMs`, and one more asked of the store then failing too). It also
 * carries the fenced writes made while the turn plays (each step's results, DESIGN §12), one store
 * call at a time. Durations are measured with the monotonic clock: no wall clock is compared with
 * another machine's. A store that can mark a run to stop (DESIGN §20, `requestStop`) is asked before
 * a model or tool call, by a renewal that returns the mark — unless the store was last asked (the
 * claim, or a renewal) less than {@link stopCheckMs} ago, so a short turn makes no extra round trip.
 * A marked hold stops the turn, which ends `aborted` and is written as usual. The bound: no call
 * starts more than `stopCheckMs` after the stop was marked (a call already running finishes).
 */
import { ConflictError } from '../errors.js';
import type { QueuedMessage, SnapshotStore, StopMark } from './store.js';

/** A claim being held: what the loop's fence asks, and what sessions need after the turn. */
export interface Hold {
  /** Aborted when the hold is lost, so in-flight tools can stop early. */
  readonly signal: AbortSignal;
  /** Why the hold was lost, or null while it holds. */
  readonly lost: ConflictError | null;
  /**
   * Whether the loss is certain: the store refused a renewal or a write (another worker took the
   * run), or the turn was handed back. A hold lost only for want of news may still write: the
   * store judges that write as it judges every other.
   */
  readonly certain: boolean;
  /**
   * The stop request seen on the lease (by a renewal), or null. Once set, `holds()` is false: the
   * turn ends `aborted`, and unlike a lost hold its result is written.
   */
  readonly stopRequest: StopMark | null;
  /** The version of the last write under this claim (the claim's, then each recorded step's). */
  readonly version: number;
  /**
   * Messages queued on the run (DESIGN §30) as the last renewal returned them. A store that keeps a
   * queue (`queueMessage`) is asked before a call as for a stop mark, so a message queued while a
   * tool ran is seen before the next model call.
   */
  readonly queued: QueuedMessage[];
  /**
   * Whether the worker may start its next model or tool call. Past a whole lease without a
   * confirmed renewal it asks the store once more (a renewal) before giving up. With a store that
   * keeps stop marks it renews to see a stop request before the call starts, unless the store
   * answered less than {@link stopCheckMs} ago.
   */
  holds(): Promise<boolean>;
  /**
   * A fenced write under the claim, never at the same time as a renewal: `write(expectedVersion)`
   * writes with that version and a renewed lease and returns the new version. A refusal loses the
   * hold; any other failure is thrown and changes nothing.
   */
  write(write: (expectedVersion: number) => Promise<number>): Promise<void>;
  /** Stops renewing; waits for a renewal in flight so none lands after the result write. */
  stop(): Promise<void>;
}

/**
 * How long the last answer of the store (the claim, or a renewal) counts as a check for a stop
 * mark: `leaseMs / 10`, at most 250 ms. A call that starts within it asks nothing more.
 */
export function stopCheckMs(leaseMs: number): number {
  return Math.min(250, leaseMs / 10);
}

/** Options of {@link holdRun}. */
export interface HoldOptions {
  store: SnapshotStore;
  runId: string;
  owner: string;
  /** The version the claim wrote. */
  version: number;
  leaseMs: number;
  /** Monotonic time (performance.now) when the claim was sent: the lease runs at least leaseMs from there. */
  claimedAt: number;
  /**
   * Whether the claim's write counts as a check for a stop mark (default true): a new owner's claim
   * starts unmarked. False when it kept a lease that may be marked already (a deferred claim played).
   */
  claimSeesStop?: boolean;
  /** Ends the hold when aborted, as a refused renewal would (a worker handing the turn back). */
  handBack?: AbortSignal | undefined;
  /** Told the messages queued on the run (DESIGN §30) whenever a renewal returns some. */
  onQueued?: ((queued: QueuedMessage[]) => void) | undefined;
}

/** The error a worker that lost its claim throws instead of writing a result. */
export function lostClaimError(runId: string, why: string): ConflictError {
  return new ConflictError(
    `Run ${runId}: this worker lost its claim (${why}), so it started no further model or tool call and wrote nothing. Another request holds the run now: load it to see its state.`,
  );
}

/** Starts renewing a claim; see {@link Hold}. */
export function holdRun(options: HoldOptions): Hold {
  const { store, runId, owner, leaseMs } = options;
  const controller = new AbortController();
  let version = options.version;
  let confirmedAt = options.claimedAt;
  /** When the last contact that tells a stop mark (the claim, a renewal) was sent. */
  let stopCheckedAt = options.claimSeesStop === false ? Number.NEGATIVE_INFINITY : options.claimedAt;
  const stopFreshMs = stopCheckMs(leaseMs);
  let lost: ConflictError | null = null;
  let stopRequest: StopMark | null = null;
  let queued: QueuedMessage[] = [];
  // Stop marks and queued messages (DESIGN §30) both come back with a renewal.
  const watchesStop = typeof store.requestStop === 'function' || typeof store.queueMessage === 'function';
  let certain = false;
  let renewing = false;
  let stopped = false;
  // One store call at a time: a renewal never races a write that moves the version.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task);
    queue = next.catch(() => undefined);
    return next;
  };

  const lose = (why: string, sure: boolean) => {
    if (lost) return;
    lost = lostClaimError(runId, why);
    certain = sure;
    controller.abort(lost);
  };

  /** One renewal; true when the store confirmed it. */
  const renewOnce = async (): Promise<boolean> => {
    const sentAt = performance.now();
    try {
      const renewed = await store.renew(runId, { owner, version, ms: leaseMs });
      confirmedAt = Math.max(confirmedAt, sentAt);
      stopCheckedAt = Math.max(stopCheckedAt, sentAt);
      if (renewed?.stop) stopRequest ??= renewed.stop;
      queued = renewed?.queued ?? [];
      if (queued.length > 0) options.onQueued?.(queued);
      return true;
    } catch (error) {
      // A refusal means another worker took the run; any other failure is retried on the next
      // tick, and `holds()` asks once more before giving up.
      if (!stopped && error instanceof ConflictError) lose('its lease renewal was refused', true);
      return false;
    }
  };

  const tick = () => {
    if (stopped || lost || renewing) return;
    renewing = true;
    void serial(renewOnce).finally(() => {
      renewing = false;
    });
  };
  const timer = setInterval(tick, Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref?.();
  const handBack = options.handBack;
  const handedBack = () => lose('it handed the turn back', true);
  if (handBack?.aborted) handedBack();
  else handBack?.addEventListener('abort', handedBack, { once: true });

  return {
    signal: controller.signal,
    get lost() {
      return lost;
    },
    get certain() {
      return certain;
    },
    get stopRequest() {
      return stopRequest;
    },
    get version() {
      return version;
    },
    get queued() {
      return queued;
    },
    async holds() {
      if (lost || stopRequest) return false;
      const at = performance.now();
      const fresh = at - confirmedAt < leaseMs;
      // The store answered (claim or renewal) a moment ago: a stop mark set since waits for the next check.
      if (fresh && (!watchesStop || at - stopCheckedAt < stopFreshMs)) return true;
      // No renewal confirmed for a whole lease (the store unreachable, or this process stalled):
      // the store, not this worker's doubt, says whether the run is still its own. A failed check
      // for a stop mark within the lease changes nothing: the next check or renewal sees the mark.
      if (!(await serial(renewOnce)) && !fresh) lose('no lease renewal was confirmed in time', false);
      return lost === null && stopRequest === null;
    },
    async write(write) {
      await serial(async () => {
        if (lost && certain) return;
        const sentAt = performance.now();
        try {
          version = await write(version);
          confirmedAt = Math.max(confirmedAt, sentAt);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
          lose('its write was refused', true);
        }
      });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      handBack?.removeEventListener('abort', handedBack);
      await queue;
    },
  };
}
