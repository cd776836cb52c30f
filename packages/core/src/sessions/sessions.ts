/**
 * Sessions (DESIGN §7, §12): runs kept in a `SnapshotStore` between requests, safe across any
 * number of stateless workers. Every call claims before it acts: load → apply the response to the
 * machine (running nothing) → compare-and-set that state with a lease → run tools and model while
 * renewing the lease → CAS-write the result. A request that loses the claim fails before any tool
 * runs; a worker that loses it mid-turn starts nothing more and writes nothing. Leases are judged
 * by the store alone, on its clock.
 */
import { performance } from 'node:perf_hooks';
import { ConflictError, StateError, TurnkitError } from '../errors.js';
import {
  applyResolutions,
  beginTurn,
  driveToRest,
  newRun,
  newRunId,
  now,
  prepareResolutions,
  type ResponseInput,
  type Run,
  responseFields,
  resultOf,
  send,
  sendUserMessage,
  stateOf,
  toMessages,
} from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import { assertSerializable, type StoredLogs } from '../snapshot/index.js';
import type { TurnOptions, TurnStatus } from '../types.js';
import type {
  PlayOptions,
  SessionOptions,
  SessionResult,
  Sessions,
  SessionsConfig,
  TurnClaim,
} from './api.js';
import { holdRun, lostClaimError } from './lease.js';
import { repeatOf } from './repeats.js';
import { readRun, type StoredRun, writeRun } from './rows.js';

type Loaded = StoredRun;
type Claim = {
  owner: string;
  version: number;
  claimedAt: number;
  logs?: StoredLogs;
  /** The claim as written, built on first call (what a deferred call returns). */
  snapshot: () => string;
};

/**
 * How far a turn taken over from another worker skips the event sequence: that worker may have
 * published events the store never saw, and a reader resuming by `seq` (Last-Event-ID) must never
 * see two events under one number.
 */
export const TAKEOVER_SEQ_GAP = 1_000_000;

/** A session result: the turn result (its `snapshot` built when first read, see `resultOf`) and the version. */
function sessionResult(
  run: Run,
  snapshot: string | (() => string),
  version: number,
  status?: TurnStatus,
): SessionResult {
  // Not spread: that would read the lazy `snapshot` getter.
  const result = resultOf(run, snapshot, status) as SessionResult;
  result.version = version;
  return result;
}

/** A snapshot in a working state was written by a claim: a worker is (or was) playing its turn. */
const isClaim = (run: Run) => stateOf(run) === 'callingModel' || stateOf(run) === 'executingTools';

/**
 * Creates sessions over a store.
 *
 * @example
 * const sessions = createSessions({ agent, store: memoryStore() });
 * const r1 = await sessions.start('Thaw one K562 vial');
 * const r2 = await sessions.answer(r1.runId, { answers: { 'Cell line': 'K562' } });
 */
export function createSessions(config: SessionsConfig): Sessions {
  const { agent, store } = config;
  const leaseMs = config.leaseMs ?? 60_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 3) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `createSessions: leaseMs must be an integer >= 3, got ${leaseMs}.`,
    );
  }

  async function load(runId: string, options: TurnOptions): Promise<Loaded> {
    const loaded = await readRun(store, agent, runId, options);
    if (!loaded)
      throw new StateError(
        'RUN_NOT_FOUND',
        `No run with id ${JSON.stringify(runId)} is stored: start one with sessions.start().`,
      );
    return loaded;
  }

  /** Whether another worker holds the run right now (the store's judgement at the read). */
  const leased = (loaded: Loaded) => loaded.lease?.live === true;

  function current(loaded: Loaded): SessionResult {
    const status = isClaim(loaded.run) ? 'running' : undefined;
    return sessionResult(loaded.run, loaded.snapshot, loaded.version, status);
  }

  /**
   * Writes the prepared run as a claim: the run is this worker's until its lease lapses. In row
   * layout 2 that is the head and whatever applying the response appended (its resolved records).
   */
  async function claim(
    run: Run,
    expectedVersion: number | null,
    logs?: StoredLogs,
    owner = newRunId(),
  ): Promise<Claim> {
    const ms = leaseMs;
    const claimedAt = performance.now();
    const written = await writeRun(store, run, logs, { expectedVersion, lease: { owner, ms } });
    return {
      owner,
      version: written.version,
      claimedAt,
      snapshot: written.snapshot,
      ...(written.logs ? { logs: written.logs } : {}),
    };
  }

  /**
   * Plays the claimed turn; with `defer`, leaves it for a worker (`play`, which takes the claim's
   * lease over) and returns it as `running`.
   */
  function proceed(run: Run, claimed: Claim, options: SessionOptions): Promise<SessionResult> {
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
   * Plays the claimed turn while renewing the lease, then writes its result (fenced by version and
   * owner). `handBack` ends the hold as a lost claim would, and releases the lease.
   */
  async function play(run: Run, claimed: Claim, handBack?: AbortSignal): Promise<SessionResult> {
    const { owner, version, claimedAt, logs } = claimed;
    const hold = holdRun({ store, runId: run.runId, owner, version, leaseMs, claimedAt, handBack });
    const signal = run.options.signal;
    run.options = { ...run.options, signal: signal ? AbortSignal.any([signal, hold.signal]) : hold.signal };
    run.fence = hold;
    try {
      await driveToRest(run);
    } finally {
      await hold.stop();
    }
    if (hold.lost) {
      if (handBack?.aborted) await release(run.runId, owner, version);
      throw hold.lost;
    }
    const expiresAt = pendingInteractions(run.state.context)
      .map((interaction) => interaction.expiresAt)
      .filter((value): value is string => value !== null)
      .sort()[0];
    let written: Awaited<ReturnType<typeof writeRun>>;
    try {
      written = await writeRun(store, run, logs, {
        expectedVersion: version,
        lease: { owner, ms: 0 },
        expiresAt: expiresAt ?? null,
      });
    } catch (error) {
      if (error instanceof ConflictError) throw lostClaimError(run.runId, 'its result write was refused');
      throw error;
    }
    return sessionResult(run, written.snapshot, written.version);
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
  async function recover(loaded: Loaded, options: SessionOptions = {}): Promise<SessionResult> {
    loaded.run.seq += TAKEOVER_SEQ_GAP;
    beginTurn(loaded.run, 'continue');
    return claimAndRun(loaded.run, loaded.version, loaded.logs, options);
  }

  async function respond(
    runId: string,
    responses: ResponseInput[],
    options: SessionOptions = {},
  ): Promise<SessionResult> {
    const loaded = await load(runId, options);
    if (isClaim(loaded.run) && !leased(loaded)) {
      await recover(loaded);
      return respond(runId, responses, options);
    }
    const repeats = responses.map((response) => repeatOf(loaded.run, response));
    if (repeats.length > 0 && repeats.every((repeat) => repeat === 'same')) return current(loaded);
    if (repeats.includes('different')) {
      throw new ConflictError(
        `Run ${runId}: an interaction in this request was already resolved with a different decision; load the run to see its state.`,
      );
    }
    if (leased(loaded)) throw busy(runId);
    const resolutions = prepareResolutions(loaded.run, responses);
    beginTurn(loaded.run, 'respond');
    applyResolutions(loaded.run, resolutions);
    let claimed: Claim;
    try {
      claimed = await claim(loaded.run, loaded.version, loaded.logs);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Lost the race to claim, before anything ran: if the winner applied this very decision,
      // answer as a repeat would.
      const again = await load(runId, options);
      if (responses.every((response) => repeatOf(again.run, response) === 'same')) return current(again);
      throw error;
    }
    return proceed(loaded.run, claimed, options);
  }

  async function playClaim(job: TurnClaim, options: PlayOptions = {}): Promise<SessionResult> {
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

  function busy(runId: string): ConflictError {
    return new ConflictError(
      `Run ${runId} is being worked on by another request. Wait for it and load the run again.`,
    );
  }

  return {
    async start(start, options = {}) {
      const request = typeof start === 'string' || Array.isArray(start) ? { input: start } : start;
      if (typeof request !== 'object' || request === null) {
        throw new TurnkitError(
          'CONFIG_INVALID',
          'sessions.start takes a message, messages, or { input, context?, runId? }.',
        );
      }
      if (request.context !== undefined) assertSerializable(request.context, agent.serializer);
      const run = newRun(agent, request.runId ?? newRunId(), request.context, options);
      beginTurn(run, 'input');
      send(run, { type: 'START', messages: toMessages(request.input), maxSteps: agent.maxSteps });
      return claimAndRun(run, null, undefined, options);
    },
    answer: async (runId, answer, options) =>
      respond(runId, [{ ...responseFields(answer), type: 'answer' }], options),
    approve: async (runId, decision = {}, options) =>
      respond(runId, [{ ...responseFields(decision), type: 'approve' }], options),
    reject: async (runId, decision = {}, options) =>
      respond(runId, [{ ...responseFields(decision), type: 'reject' }], options),
    cancel: async (runId, cancel = {}, options) =>
      respond(runId, [{ ...responseFields(cancel), type: 'cancel' }], options),
    provideInput: async (runId, input, options) =>
      respond(runId, [{ ...responseFields(input), type: 'input' }], options),
    respond,
    async send(runId, input, options = {}) {
      const loaded = await load(runId, options);
      if (leased(loaded)) throw busy(runId);
      if (isClaim(loaded.run)) {
        await recover(loaded);
        return this.send(runId, input, options);
      }
      beginTurn(loaded.run, 'input');
      sendUserMessage(loaded.run, toMessages(input));
      return claimAndRun(loaded.run, loaded.version, loaded.logs, options);
    },
    async retry(runId, options = {}) {
      const loaded = await load(runId, options);
      if (leased(loaded)) throw busy(runId);
      if (isClaim(loaded.run)) return recover(loaded, options);
      const state = stateOf(loaded.run);
      if (state !== 'failed' && state !== 'aborted' && state !== 'maxSteps') {
        throw new StateError(
          'NOT_WAITING',
          `Run ${runId} has nothing to retry (it is ${resultOf(loaded.run, '').status}).`,
        );
      }
      beginTurn(loaded.run, 'retry');
      send(loaded.run, { type: 'RETRY', maxSteps: agent.maxSteps });
      return claimAndRun(loaded.run, loaded.version, loaded.logs, options);
    },
    async expire(runId, options = {}) {
      const loaded = await load(runId, options);
      if (isClaim(loaded.run) || stateOf(loaded.run) !== 'waitingInput') return current(loaded);
      const at = now(loaded.run).getTime();
      const expired = pendingInteractions(loaded.run.state.context).filter(
        (interaction) => interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= at,
      );
      if (expired.length === 0) return current(loaded);
      // Expiry is checked before anything else, so these resolve as timed out (or defaulted).
      return respond(
        runId,
        expired.map((interaction) => ({ id: interaction.id, type: 'cancel' as const })),
        options,
      );
    },
    async get(runId, options = {}) {
      return current(await load(runId, options));
    },
    async sweep(options = {}) {
      const { limit = 100, ...turnOptions } = options;
      const at = turnOptions.now ?? new Date();
      const swept: SessionResult[] = [];
      const skipped: { runId: string; error: Error }[] = [];
      for (const runId of await store.listExpired(at, limit)) {
        try {
          swept.push(await this.expire(runId, { ...turnOptions, now: at }));
        } catch (error) {
          skipped.push({ runId, error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      return { swept, skipped };
    },
    play: playClaim,
  };
}
