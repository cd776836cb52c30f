/**
 * The steps every session call is made of (DESIGN §12): load a run, judge its lease, claim it with
 * a compare-and-set, play the claimed turn while renewing the lease, write the result fenced by
 * version and owner; take over a turn whose worker died, hand one back, and play a claim left for
 * a background worker (§17). `createSessions` composes them into the public calls.
 */
import { ConflictError, StateError } from '../errors.js';
import {
  beginTurn,
  driveToRest,
  IN_DOUBT,
  markClaimStarted,
  markInDoubt,
  newRunId,
  type Run,
  type RunAccess,
  resultOf,
  stateOf,
  withStoreClock,
} from '../interpreter/index.js';
import type { StoredLogs } from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';
import type { TurnOptions, TurnStatus } from '../types.js';
import type { PlayOptions, SessionOptions, SessionResult, TurnClaim } from './api.js';
import { type Hold, holdRun, lostClaimError } from './lease.js';
import { deliverLate, noticeQueued } from './queued.js';
import { earliestExpiry, readRun, type StoredRun, writeRun } from './rows.js';
import type { SnapshotStore } from './store.js';

export type Loaded = StoredRun;
export type Claim = {
  owner: string;
  version: number;
  claimedAt: number;
  logs?: StoredLogs;
  /** The claim kept the lease of an owner named before it (a deferred claim played): it may carry a stop mark. */
  keptLease?: boolean;
  /** The claim as written, built on first call (what a deferred call returns). */
  snapshot: () => string;
};

/**
 * How far a turn taken over from another worker skips the event sequence: that worker may have
 * published events the store never saw, and a reader resuming by `seq` (Last-Event-ID) must never
 * see two events under one number.
 */
export const TAKEOVER_SEQ_GAP = 1_000_000;

/** The run behind each result sessions return (and its stored logs), for what may follow the call. */
const origins = new WeakMap<object, { run: Run; logs: StoredLogs | undefined }>();

/** The run a session result was made from, while that result is alive. */
export function originOf(result: object): { run: Run; logs: StoredLogs | undefined } | undefined {
  return origins.get(result);
}

/** A session result: the turn result (its `snapshot` built when first read, see `resultOf`) and the version. */
export function sessionResult(
  run: Run,
  snapshot: string | (() => string),
  version: number,
  status?: TurnStatus,
  logs?: StoredLogs,
): SessionResult<unknown> {
  // Not spread: that would read the lazy `snapshot` getter.
  const result = resultOf(run, snapshot, status) as SessionResult<unknown>;
  result.version = version;
  origins.set(result, { run, logs });
  if (run.forkedFrom) result.forkedFrom = run.forkedFrom;
  return result;
}

/** A snapshot in a working state was written by a claim: a worker is (or was) playing its turn. */
export const isClaim = (run: Run) => stateOf(run) === 'callingModel' || stateOf(run) === 'executingTools';

/** The steps of {@link sessionTurns}, bound to one agent, store and lease. */
export type SessionTurns = ReturnType<typeof sessionTurns>;

/** The claim-and-play steps over `store`, each claim lasting `leaseMs` unless renewed. */
export function sessionTurns(agent: AnyAgent, store: SnapshotStore, leaseMs: number) {
  /**
   * The store's clock minus this host's (ms) at the last write, null when the store gives no
   * clock, undefined before the first write: a new run's questions are asked on it (`startNew`).
   */
  let storeClock: number | null | undefined;
  const noteClock = (storeNow: number | undefined) => {
    storeClock = typeof storeNow === 'number' && Number.isFinite(storeNow) ? storeNow - Date.now() : null;
  };

  async function load(runId: string, options: TurnOptions, access: RunAccess = 'owner'): Promise<Loaded> {
    const loaded = await readRun(store, agent, runId, options, access);
    if (!loaded)
      throw new StateError(
        'RUN_NOT_FOUND',
        `No run with id ${JSON.stringify(runId)} is stored: start one with sessions.start().`,
      );
    // Tools in doubt (DESIGN §21): a stored run may hold one, and a response to it is judged
    // before the run is played (`play` hands it to the runs it plays, new ones included).
    loaded.run.doubt = IN_DOUBT;
    return loaded;
  }

  /** Whether another worker holds the run right now (the store's judgement at the read). */
  const leased = (loaded: Loaded) => loaded.lease?.live === true;

  function current(loaded: Loaded): SessionResult<unknown> {
    const status = isClaim(loaded.run) ? 'running' : undefined;
    return sessionResult(loaded.run, loaded.snapshot, loaded.version, status, loaded.logs);
  }

  /**
   * Writes the prepared run as a claim: the run is this worker's until its lease lapses. In row
   * layout 2 that is the head and whatever applying the response appended (its resolved records).
   */
  async function claim(
    run: Run,
    expectedVersion: number | null,
    logs?: StoredLogs,
    kept?: string,
  ): Promise<Claim> {
    const owner = kept ?? newRunId();
    const ms = leaseMs;
    // Tools in doubt (DESIGN §21): calls this claim leads straight to are recorded started by it.
    markClaimStarted(run);
    const claimedAt = performance.now();
    const written = await writeRun(store, run, logs, { expectedVersion, lease: { owner, ms } });
    noteClock(written.now);
    // The turn's questions are asked after this: on the store's clock, as they will be judged.
    run.options = withStoreClock(run.options, written.now);
    return {
      owner,
      version: written.version,
      claimedAt,
      ...(kept !== undefined ? { keptLease: true } : {}),
      snapshot: written.snapshot,
      ...(written.logs ? { logs: written.logs } : {}),
    };
  }

  /**
   * Plays the claimed turn; with `defer`, leaves it for a worker (`play`, which takes the claim's
   * lease over) and returns it as `running`.
   */
  function proceed(run: Run, claimed: Claim, options: SessionOptions): Promise<SessionResult<unknown>> {
    if (!options.defer) return play(run, claimed);
    const result = sessionResult(run, claimed.snapshot, claimed.version, 'running');
    result.claim = { runId: run.runId, owner: claimed.owner, version: claimed.version };
    return Promise.resolve(result);
  }

  const claimAndRun = async (
    run: Run,
    expectedVersion: number | null,
    logs: StoredLogs | undefined,
    options: SessionOptions,
  ) => proceed(run, await claim(run, expectedVersion, logs), options);

  /**
   * Plays the claimed turn while renewing the lease, recording each step's results before the next
   * model call, then writes its result; every write is fenced by version and owner. `handBack` ends
   * the hold as a lost claim would, and releases the lease.
   */
  async function play(
    run: Run,
    claimed: Claim | null,
    handBack?: AbortSignal,
  ): Promise<SessionResult<unknown>> {
    const owner = claimed?.owner ?? newRunId();
    let logs = claimed?.logs;
    // A new run not written yet (`start`) has no hold until its first write (see `startNew`).
    const held: { hold: Hold | null; taken: boolean } = { hold: null, taken: false };
    const signal = run.options.signal;
    const holdFrom = (version: number, claimedAt: number) => {
      const claimSeesStop = claimed?.keptLease !== true;
      const hold = holdRun({
        store,
        runId: run.runId,
        owner,
        version,
        leaseMs,
        claimedAt,
        claimSeesStop,
        handBack,
        // DESIGN §30: a message queued while a tool runs is announced as soon as a renewal brings it.
        onQueued: (queued) => noticeQueued(run, queued),
      });
      held.hold = hold;
      run.options = { ...run.options, signal: signal ? AbortSignal.any([signal, hold.signal]) : hold.signal };
    };
    if (claimed) holdFrom(claimed.version, claimed.claimedAt);
    run.doubt = IN_DOUBT;
    run.fence = {
      holds: async () => (held.hold ? held.hold.holds() : !held.taken),
      async record(current) {
        const hold = held.hold;
        if (!hold) {
          // The first write of a new run: an insert, which is its claim (a tool is about to run,
          // or a step ended), so a stop or a worker taking over finds it from here on.
          if (held.taken) return;
          try {
            const claimedAt = performance.now();
            const written = await writeRun(store, current, logs, {
              expectedVersion: null,
              lease: { owner, ms: leaseMs },
            });
            run.options = withStoreClock(run.options, written.now);
            noteClock(written.now);
            logs = written.logs;
            holdFrom(written.version, claimedAt);
          } catch (error) {
            // Taken: another run has this id, and this turn starts nothing more. Unreachable: the
            // next step's write tries again.
            if (error instanceof ConflictError) held.taken = true;
          }
          return;
        }
        try {
          await hold.write(async (expectedVersion) => {
            const written = await writeRun(store, current, logs, {
              expectedVersion,
              lease: { owner, ms: leaseMs },
            });
            logs = written.logs;
            return written.version;
          });
        } catch {
          // The store is unreachable: the step's results stay in memory for the result write, and
          // the renewals (then `holds`) judge whether the turn may go on.
        }
      },
      lateInput: (current) => deliverLate(current, held.hold?.queued ?? []),
    };
    try {
      await driveToRest(run);
    } finally {
      await held.hold?.stop();
    }
    const hold = held.hold;
    if (held.taken) throw takenIdError(run.runId);
    // Lost for certain (the store refused this worker, or it handed the turn back): nothing to
    // write. Lost for want of news only: the result write is attempted, and the store judges it.
    if (hold?.lost && hold.certain) {
      if (handBack?.aborted) await release(run.runId, owner, hold.version);
      throw hold.lost;
    }
    const expiresAt = earliestExpiry(run);
    let written: Awaited<ReturnType<typeof writeRun>>;
    try {
      written = await writeRun(store, run, logs, {
        expectedVersion: hold ? hold.version : null,
        lease: { owner, ms: 0 },
        expiresAt: expiresAt ?? null,
      });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      if (!hold) throw takenIdError(run.runId);
      throw lostClaimError(run.runId, 'its result write was refused');
    }
    noteClock(written.now);
    return sessionResult(run, written.snapshot, written.version, undefined, written.logs);
  }

  /** Lets the lease lapse now: the turn handed back is the next worker's to take. */
  async function release(runId: string, owner: string, version: number): Promise<void> {
    try {
      await store.renew(runId, { owner, version, ms: 0 });
    } catch {
      // Refused or unreachable: the lease lapses by itself within leaseMs.
    }
  }

  /** A worker died holding the run (its lease is no longer live): take it over and finish its turn. */
  async function recover(loaded: Loaded, options: SessionOptions = {}): Promise<SessionResult<unknown>> {
    loaded.run.seq += TAKEOVER_SEQ_GAP;
    beginTurn(loaded.run, 'continue');
    // Tools in doubt (DESIGN §21): calls it recorded started, with no result, may or may not have run.
    markInDoubt(loaded.run);
    return claimAndRun(loaded.run, loaded.version, loaded.logs, options);
  }

  async function playClaim(job: TurnClaim, options: PlayOptions = {}): Promise<SessionResult<unknown>> {
    const { handBack, ...turnOptions } = options;
    const loaded = await load(job.runId, turnOptions);
    // Played already (an earlier delivery, or a request), and at rest.
    if (!isClaim(loaded.run)) return current(loaded);
    // The deferred claim as written, its lease kept for the worker (live, or lapsed in the queue).
    const untouched = loaded.version === job.version;
    if (leased(loaded) && !(untouched && loaded.lease?.owner === job.owner)) throw busy(job.runId);
    if (!untouched) {
      // Taken since the deferral by a worker that stopped holding it: its turn goes on as a new one.
      loaded.run.seq += TAKEOVER_SEQ_GAP;
      beginTurn(loaded.run, 'continue');
      // Tools in doubt (DESIGN §21), as in `recover`.
      markInDoubt(loaded.run);
    }
    let claimed: Claim;
    try {
      // A compare-and-set on the version: of two deliveries of one job, one plays.
      claimed = await claim(loaded.run, loaded.version, loaded.logs, untouched ? job.owner : undefined);
    } catch (error) {
      if (error instanceof ConflictError) throw busy(job.runId);
      throw error;
    }
    return play(loaded.run, claimed, handBack);
  }

  /** The run id given to `start` is taken: another run is stored under it. */
  function takenIdError(runId: string): ConflictError {
    return new ConflictError(
      `Run ${runId} already exists: another run is stored under this id. Start the run again with a new id (or none, to get one).`,
    );
  }

  function busy(runId: string): ConflictError {
    return new ConflictError(
      `Run ${runId} is being worked on by another request. Wait for it and load the run again.`,
    );
  }

  /**
   * Plays a new run's first turn (DESIGN §12): nobody else can know a generated id before the run
   * is stored, so there is nothing to claim. The run is written once, when the turn rests — unless
   * a tool is about to run or a step ends first: that write inserts it as a claim (a stop or a
   * worker taking over finds it from there). An id already stored is refused by that insert. A
   * turn that crashes before any write leaves nothing stored: the caller's request failed, and no
   * tool ran. With `defer`, the claim is written at once, for a worker to play.
   *
   * Its questions are asked on the store's clock as a claim would have read it: the offset the last
   * write of these sessions saw. Before any write (the first start of a process) there is none yet,
   * so that start is claimed first, as a resume is.
   */
  function startNew(run: Run, options: SessionOptions): Promise<SessionResult<unknown>> {
    if (options.defer || storeClock === undefined) return claimAndRun(run, null, undefined, options);
    if (storeClock !== null) run.options = withStoreClock(run.options, Date.now() + storeClock);
    return play(run, null);
  }

  return { load, leased, current, claim, proceed, claimAndRun, recover, playClaim, busy, startNew };
}
