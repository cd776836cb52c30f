/**
 * A worker's hold on a run while it plays a turn (DESIGN §12): it renews its lease every
 * `leaseMs / 3`, and it stops holding the run — no further model or tool call starts — as soon as
 * a renewal is refused, or when it cannot be sure its lease is still live (no renewal confirmed for
 * `leaseMs`). Durations are measured with the monotonic clock: no wall clock is compared with
 * another machine's.
 */
import { ConflictError } from '../errors.js';
import type { Fence } from '../interpreter/index.js';
import type { SnapshotStore } from './store.js';

/** A claim being held: the fence the interpreter checks, and what sessions need after the turn. */
export interface Hold extends Fence {
  /** Aborted when the hold is lost, so in-flight tools can stop early. */
  readonly signal: AbortSignal;
  /** Why the hold was lost, or null while it holds. */
  readonly lost: ConflictError | null;
  /** Stops renewing; waits for a renewal in flight so none lands after the result write. */
  stop(): Promise<void>;
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
  /** Ends the hold when aborted, as a refused renewal would (a worker handing the turn back). */
  handBack?: AbortSignal | undefined;
}

/** The error a worker that lost its claim throws instead of writing a result. */
export function lostClaimError(runId: string, why: string): ConflictError {
  return new ConflictError(
    `Run ${runId}: this worker lost its claim (${why}), so it started no further model or tool call and wrote nothing. Another request holds the run now: load it to see its state.`,
  );
}

/** Starts renewing a claim; see {@link Hold}. */
export function holdRun(options: HoldOptions): Hold {
  const { store, runId, owner, version, leaseMs } = options;
  const controller = new AbortController();
  let confirmedAt = options.claimedAt;
  let lost: ConflictError | null = null;
  let inFlight: Promise<void> | null = null;
  let stopped = false;

  const lose = (why: string) => {
    if (lost) return;
    lost = lostClaimError(runId, why);
    controller.abort(lost);
  };

  const renew = () => {
    if (stopped || lost || inFlight) return;
    const sentAt = performance.now();
    inFlight = store
      .renew(runId, { owner, version, ms: leaseMs })
      .then(
        () => {
          confirmedAt = sentAt;
        },
        (error: unknown) => {
          // A refusal means another worker took the run; any other failure is retried on the next
          // tick, and `holds()` gives up once no renewal has been confirmed for a whole lease.
          if (!stopped && error instanceof ConflictError) lose('its lease renewal was refused');
        },
      )
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(renew, Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref?.();
  const handBack = options.handBack;
  const handedBack = () => lose('it handed the turn back');
  if (handBack?.aborted) handedBack();
  else handBack?.addEventListener('abort', handedBack, { once: true });

  return {
    signal: controller.signal,
    get lost() {
      return lost;
    },
    holds() {
      if (!lost && performance.now() - confirmedAt >= leaseMs) lose('no lease renewal was confirmed in time');
      return lost === null;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      handBack?.removeEventListener('abort', handedBack);
      await inFlight;
    },
  };
}
