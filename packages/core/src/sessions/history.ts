/**
 * History and forks (DESIGN §21): the points a store keeps of a run (`listPoints`, `getAt`), read
 * as `{ version, at, reason, interactionId? }`, and a new run started from one of them. A point is a
 * version's head plus the lengths of the append-only logs at that version, so reading the history
 * reads heads only, and a fork reads the one version it starts from.
 */
import { StateError, TurnkitError } from '../errors.js';
import { beginTurn, loadRun, newRunId, now, type Run } from '../interpreter/index.js';
import { type LoopContext, type LoopStateName, pendingInteractions } from '../machine/index.js';
import { assembleSnapshot } from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';
import type { TurnOptions } from '../types.js';
import type { ForkAt, HistoryPoint, PointReason, SessionOptions, SessionResult } from './api.js';
import { withoutInheritedDecisions } from './fork-decisions.js';
import { writeRun } from './rows.js';
import type { SnapshotStore, StoredPoint } from './store.js';
import { isClaim, type SessionTurns, sessionResult } from './turns.js';

type HistoryStore = SnapshotStore & Required<Pick<SnapshotStore, 'listPoints' | 'getAt'>>;

/** The store, if it keeps points; else CONFIG_INVALID saying what to use instead. */
function historyStore(store: SnapshotStore, call: string): HistoryStore {
  if (typeof store.listPoints !== 'function' || typeof store.getAt !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `sessions.${call} needs a store that keeps a run's points (listPoints and getAt): memoryStore(), or fileStore, redisStore or postgresStore from @turnkit/adapters. This store keeps only the latest version.`,
    );
  }
  return store as HistoryStore;
}

/** What a head says: its machine state, its pending interactions, and how many records were resolved. */
interface HeadFacts {
  state: LoopStateName;
  pending: string[];
  resolved: number;
}

function factsOf(point: StoredPoint): HeadFacts {
  const newline = point.head.indexOf('\n');
  const meta = JSON.parse(point.head.slice(0, newline)) as { resolved: number };
  // The head's envelope, its logs left empty, is itself valid JSON: nothing in it needs the logs.
  const envelope = JSON.parse(point.head.slice(newline + 1)) as {
    state: { value: LoopStateName; context: LoopContext };
  };
  const { value, context } = envelope.state;
  const pending = value === 'waitingInput' ? pendingInteractions(context).map((item) => item.id) : [];
  return { state: value, pending, resolved: meta.resolved };
}

const AT_REST: Partial<Record<LoopStateName, PointReason>> = {
  waitingInput: 'paused',
  completed: 'completed',
  failed: 'failed',
  aborted: 'aborted',
  maxSteps: 'max_steps',
};

/** Why each point was written, judged from its head and the point before it. */
function pointsOf(points: StoredPoint[]): { point: HistoryPoint; facts: HeadFacts }[] {
  let before: HeadFacts | undefined;
  return points.map((stored, index) => {
    const facts = factsOf(stored);
    let reason: PointReason = AT_REST[facts.state] ?? 'step';
    if (AT_REST[facts.state] === undefined) {
      if (index === 0 && stored.version === 1) reason = 'start';
      else if (before && AT_REST[before.state] !== undefined) {
        reason = before.state === 'waitingInput' && facts.resolved > before.resolved ? 'answered' : 'resumed';
      }
    }
    before = facts;
    const point: HistoryPoint = { version: stored.version, at: stored.at, reason };
    if (facts.pending[0] !== undefined) point.interactionId = facts.pending[0];
    return { point, facts };
  });
}

/** `sessions.history`: the run's kept points, oldest first (the caller must be allowed on the run). */
export async function historyOf(
  store: SnapshotStore,
  turns: SessionTurns,
  runId: string,
  options: TurnOptions = {},
): Promise<HistoryPoint[]> {
  const kept = historyStore(store, 'history');
  await turns.load(runId, options);
  return pointsOf(await kept.listPoints(runId)).map(({ point }) => point);
}

/** Which kept version `at` names: a version, or the last point where that interaction waited for an answer. */
async function versionOf(store: HistoryStore, runId: string, at: ForkAt): Promise<number> {
  const points = await store.listPoints(runId);
  if (typeof at === 'number') {
    if (points.some((point) => point.version === at)) return at;
    throw new StateError(
      'POINT_NOT_FOUND',
      `Run ${runId} has no kept point at version ${JSON.stringify(at)}: call sessions.history(${JSON.stringify(runId)}) for the versions you can fork from.`,
    );
  }
  if (typeof at !== 'object' || at === null || typeof at.interactionId !== 'string') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'sessions.fork: `at` is a version number or { interactionId: string }.',
    );
  }
  const waiting = pointsOf(points).filter(({ facts }) => facts.pending.includes(at.interactionId));
  const last = waiting.at(-1);
  if (!last) {
    throw new StateError(
      'POINT_NOT_FOUND',
      `Run ${runId} has no kept point where interaction ${JSON.stringify(at.interactionId)} waited for an answer: call sessions.history(${JSON.stringify(runId)}) for the interactions you can fork at.`,
    );
  }
  return last.point.version;
}

/**
 * `sessions.fork`: a new run from a kept point of `runId`, written under a new id with
 * `forkedFrom`, its own idempotency keys (they derive from the run id), and the source's principal.
 * A point at rest is the new run's first version as it was; a point mid-turn is claimed and its
 * turn played on, as a takeover would. Nothing the source decided runs without a new decision: its
 * approved and answered calls are asked again, its started calls are in doubt (fork-decisions.ts).
 * The source run is not touched.
 */
export async function forkRun(
  agent: AnyAgent,
  store: SnapshotStore,
  turns: SessionTurns,
  runId: string,
  request: { at: ForkAt; runId?: string },
  options: SessionOptions = {},
): Promise<SessionResult<unknown>> {
  const kept = historyStore(store, 'fork');
  if (typeof request !== 'object' || request === null || !('at' in request)) {
    throw new TurnkitError('CONFIG_INVALID', 'sessions.fork takes { at: version | { interactionId } }.');
  }
  // The caller must be allowed on the source as it is now (its principal), not only at the point.
  await turns.load(runId, options);
  const version = await versionOf(kept, runId, request.at);
  const parts = await kept.getAt(runId, version);
  if (!parts) {
    throw new StateError(
      'POINT_NOT_FOUND',
      `Run ${runId}: version ${version} is no longer kept (the store's keepHistory dropped it). Call sessions.history for the points kept.`,
    );
  }
  const run: Run = loadRun(agent, assembleSnapshot(parts), options);
  run.runId = request.runId ?? newRunId();
  run.forkedFrom = { runId, version };
  // No decision of the source's carries over: what it approved or started is asked again here.
  withoutInheritedDecisions(run, runId, now(run).getTime());
  // The transcript's text is reused as is: it holds no run id.
  if (!isClaim(run)) {
    const expiresAt = pendingInteractions(run.state.context)
      .map((interaction) => interaction.expiresAt)
      .filter((value): value is string => value !== null)
      .sort()[0];
    const written = await writeRun(store, run, undefined, {
      expectedVersion: null,
      expiresAt: expiresAt ?? null,
    });
    return sessionResult(run, written.snapshot, written.version);
  }
  beginTurn(run, 'continue');
  return turns.claimAndRun(run, null, undefined, options);
}
