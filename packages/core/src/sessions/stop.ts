/**
 * Stop is not disconnect (DESIGN §20): `sessions.stop` stops a run wherever it plays. A turn that a
 * worker holds is marked in the store (`requestStop`, beside the lease, the version untouched); the
 * worker sees the mark before its next model or tool call and ends the turn `aborted` (lease.ts).
 * A paused run has its pending interactions cancelled and rests `aborted`; a turn whose worker died
 * is ended `aborted` here. A run already at rest is left as it is. `send` or `retry` continues an
 * aborted run. Closing an event stream never calls any of this.
 */
import { AnswerError, ConflictError, TurnkitError } from '../errors.js';
import {
  applyResolutions,
  beginTurn,
  driveToRest,
  markInDoubt,
  prepareResolutions,
  type Run,
  responseFields,
  send,
  stateOf,
} from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import type { TurnOptions } from '../types.js';
import type { SessionResult, StopOutcome, StopRequest, StopResult } from './api.js';
import { writeRun } from './rows.js';
import type { SnapshotStore } from './store.js';
import { isClaim, type Loaded, type SessionTurns, sessionResult, TAKEOVER_SEQ_GAP } from './turns.js';

/** How often a stop is tried again when the run changed between its read and its write. */
const ATTEMPTS = 5;

/** The stop request copied into plain data, its `reason` checked. */
function stopRequestOf(given: StopRequest | undefined): StopRequest {
  const request = responseFields(given);
  if (request.reason !== undefined && typeof request.reason !== 'string') {
    throw new AnswerError([{ path: ['reason'], message: 'Must be a string' }], 'The stop request');
  }
  return request.reason === undefined ? {} : { reason: request.reason };
}

const withOutcome = (result: SessionResult<unknown>, stop: StopOutcome): StopResult<unknown> =>
  Object.assign(result, { stop });

/**
 * Ends the loaded run's turn `aborted` without running anything: a paused run's interactions are
 * cancelled first (each call gets its one result, `interaction_resolved` says `cancelled` with the
 * reason). Written with a compare-and-set and no lease, so a request that got there first wins.
 */
async function abortAtRest(store: SnapshotStore, loaded: Loaded, reason: string | undefined) {
  const run: Run = loaded.run;
  // The events are told once the write has won: a stop that lost the race emitted nothing.
  const observer = run.options.onEvent;
  run.options = { ...run.options, onEvent: undefined };
  if (isClaim(run)) {
    // Its worker died mid-turn: the turn goes on as a new one, whose events may follow the dead worker's.
    run.seq += TAKEOVER_SEQ_GAP;
    beginTurn(run, 'continue');
    // A call it started has no result: it may or may not have run. Kept in doubt, so the retry or
    // message that continues this run applies its tool's onInDoubt (DESIGN §21).
    markInDoubt(run);
  } else {
    beginTurn(run, 'stop');
    const cancels = pendingInteractions(run.state.context).map((interaction) => ({
      id: interaction.id,
      type: 'cancel' as const,
      ...(reason !== undefined ? { reason } : {}),
    }));
    applyResolutions(run, prepareResolutions(run, cancels));
  }
  if (stateOf(run) === 'callingModel' || stateOf(run) === 'executingTools') send(run, { type: 'ABORT' });
  // Nothing is left to play: this only emits `turn_aborted`.
  await driveToRest(run);
  const written = await writeRun(store, run, loaded.logs, {
    expectedVersion: loaded.version,
    lease: null,
    expiresAt: null,
  });
  for (const event of run.events) {
    try {
      observer?.(event);
    } catch {
      // An observer's bug must not change the run it observes.
    }
  }
  return sessionResult(run, written.snapshot, written.version);
}

/**
 * `sessions.stop`: see {@link Sessions.stop}. `turns` are the session's steps over `store`.
 */
export async function stopRun(
  turns: SessionTurns,
  store: SnapshotStore,
  runId: string,
  given: StopRequest | undefined,
  options: TurnOptions,
): Promise<StopResult<unknown>> {
  const { reason } = stopRequestOf(given);
  for (let attempt = 1; ; attempt++) {
    const loaded = await turns.load(runId, options);
    const state = stateOf(loaded.run);
    if (!isClaim(loaded.run) && state !== 'waitingInput') {
      return withOutcome(turns.current(loaded), 'not_running');
    }
    try {
      if (turns.leased(loaded)) {
        if (typeof store.requestStop !== 'function') {
          throw new TurnkitError(
            'CONFIG_INVALID',
            `Run ${runId} is being played by a worker, and this store cannot mark a run to stop (it has no requestStop). Use a store of this release (memory, file, Redis, Postgres), or wait until the turn ends.`,
          );
        }
        if (await store.requestStop(runId, reason !== undefined ? { reason } : {})) {
          return withOutcome(turns.current(loaded), 'requested');
        }
      } else {
        return withOutcome(await abortAtRest(store, loaded, reason), 'stopped');
      }
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    // The run moved between the read and the mark or the write (a turn ended, a request claimed
    // it): read it again and stop what it is now.
    if (attempt >= ATTEMPTS) {
      throw new ConflictError(
        `Run ${runId} changed ${ATTEMPTS} times while it was being stopped. Load it to see its state, and stop it again if it still plays.`,
      );
    }
  }
}
