/**
 * `replay` and `assertReplay` (DESIGN §28): a recorded run played through today's agent, turn by
 * turn, with no model, no side effects and no person — the recorded model responses, tool results
 * and human responses stand in for them — and every place where today's agent acts otherwise.
 */
import { TurnkitError } from '../errors.js';
import { expire, respond, runTurn } from '../interpreter/index.js';
import type { Agent } from '../tools/index.js';
import type { InteractionResponse, PendingInteraction, TurnOptions, TurnResult } from '../types.js';
import { type Divergence, formatDivergences } from './divergence.js';
import { REDACTED, type RecordedTurn, type Recording, readRecording } from './recording-format.js';
import { type ReplayOptions, ReplayState, replayAgent } from './replay-agent.js';
import { askKey, compareTurn } from './replay-compare.js';
import { escalatedTo } from './replay-escalation.js';
import { playLate } from './replay-late.js';

export type { ReplayOptions } from './replay-agent.js';

/** What {@link replay} found: today's run as it ended, and where it diverged from the recording. */
export interface ReplayResult<TOutput = string> {
  /** The last turn today's agent played (null when not even the first could be played). */
  result: TurnResult<TOutput> | null;
  /** Empty when today's agent acts exactly as recorded. */
  divergences: Divergence[];
}

/** The recorded responses of a turn, addressed to today's pending interactions. */
function responsesFor(
  state: ReplayState,
  recorded: RecordedTurn,
  pending: PendingInteraction[],
): InteractionResponse[] {
  const responses: InteractionResponse[] = [];
  for (const { interactionId, toolCallId, kind, agentPath, response } of recorded.responses ?? []) {
    const match =
      pending.find((item) => item.id === interactionId) ??
      pending.find((item) => askKey(item) === askKey({ agentPath, toolCallId, kind, toolName: '' }));
    // Its pause already diverged (reported when asked): nothing to answer.
    if (!match) continue;
    if (JSON.stringify(response).includes(REDACTED)) {
      state.diverge('missing', `the recorded response to ${interactionId} was redacted`, response, undefined);
    }
    responses.push({ id: match.id, ...response } as InteractionResponse);
  }
  return responses;
}

/** Plays one recorded turn through today's agent; null when there is nothing it can play. */
async function playTurn<TOutput>(
  agent: Agent<TOutput>,
  state: ReplayState,
  recorded: RecordedTurn,
  last: TurnResult<TOutput> | null,
): Promise<TurnResult<TOutput> | null> {
  const options: TurnOptions = {
    now: new Date(recorded.at),
    ...(recorded.principal !== undefined ? { principal: recorded.principal } : {}),
  };
  // Messages delivered as the turn played (DESIGN §30) join it at the model call they preceded.
  const late = (recorded.late ?? []).length > 0;
  if (recorded.trigger === 'input') {
    if (!recorded.input) {
      state.diverge('missing', 'the recording does not hold the input of this turn', undefined, undefined);
      state.stopped = true;
      return null;
    }
    if (!last) {
      const context = state.options.context !== undefined ? { context: state.options.context } : {};
      if (late) return playLate(agent, recorded, { runId: state.recording.runId, ...context }, options);
      return runTurn(agent, { input: recorded.input, runId: state.recording.runId, ...context }, options);
    }
    if (late) return playLate(agent, recorded, { snapshot: last.snapshot }, options);
    return runTurn(agent, { snapshot: last.snapshot, input: recorded.input }, options);
  }
  // A stop has no client-held form (it marks a stored run): the next turn supersedes what it cancelled.
  if (!last || recorded.trigger === 'stop') return null;
  if (recorded.trigger === 'expire') return expire(agent, last.snapshot, options);
  if (recorded.trigger === 'retry' || recorded.trigger === 'continue') {
    return last.status === 'completed' || last.status === 'needs_input'
      ? null
      : runTurn(agent, { snapshot: last.snapshot }, options);
  }
  const responses = responsesFor(state, recorded, last.pending);
  if (responses.length === 0) return null;
  const ids = responses.map((response) => response.id);
  const snapshot = escalatedTo(agent as Agent<unknown>, last.snapshot, ids, recorded.principal);
  if (late) return playLate(agent, recorded, { snapshot, responses }, options);
  return respond(agent, snapshot, responses, options);
}

/**
 * Plays `recording` through today's `agent` (DESIGN §28): the model answers with the recorded
 * responses (`model: 'live'`: today's model, compared call by call — an eval), tools return their
 * recorded results without running (`tools: 'live'`: today's tools run), and each pause is answered
 * with the recorded response, by the recorded principal, at the recorded time: by default nothing
 * leaves the process and nothing is written. A run recorded under another agent `version` is resumed through today's `migrate`, as a
 * stored run would be. Replay stops where the run leaves the recorded path (another tool call, a
 * refused output, a missing response): what follows could not be compared.
 *
 * @example
 * const { divergences } = await replay(agent, recording);
 * expect(divergences).toEqual([]);
 */
export async function replay<TOutput>(
  agent: Agent<TOutput>,
  recording: Recording,
  options: ReplayOptions = {},
): Promise<ReplayResult<TOutput>> {
  const checked = readRecording(recording);
  if (checked.agent !== agent.name) {
    throw new TurnkitError(
      'RECORDING_INVALID',
      `This recording is of agent ${checked.agent}, not ${agent.name}: replay it with the agent that played it.`,
    );
  }
  const state = new ReplayState(checked, options);
  const today = replayAgent(agent, state);
  // The first turn runs as the recorded version did, so later turns resume through `migrate`.
  const older = checked.agentVersion !== null && checked.agentVersion !== agent.version;
  const first = older ? replayAgent(agent, state, checked.agentVersion!) : today;
  const recordedResults = new Map(
    checked.turns.flatMap((turn) => turn.results.map((item) => [item.toolCallId, item.result] as const)),
  );
  let last: TurnResult<TOutput> | null = null;
  if (checked.turns[0]?.trigger !== 'input') {
    // A log cut at the start (or an empty one): nothing could be compared, which is not a pass.
    state.diverge(
      'missing',
      'the recording does not start with the run’s first turn',
      'turn 1 (input)',
      checked.turns[0]?.trigger ?? 'no turn',
    );
    return { result: null, divergences: state.divergences };
  }
  for (const [index, turn] of checked.turns.entries()) {
    if (state.stopped) break;
    state.begin(turn);
    let played: TurnResult<TOutput> | null;
    try {
      played = await playTurn(index === 0 ? first : today, state, turn, last);
    } catch (error) {
      if (!TurnkitError.isInstance(error) || turn.trigger !== 'respond') throw error;
      // Today's agent refuses the recorded response: another assignee rule, quorum or question.
      state.diverge(
        'pause',
        `today's agent refuses the recorded ${turn.trigger} (${error.code})`,
        turn.responses ?? turn.trigger,
        { code: error.code, message: error.message },
      );
      continue;
    }
    if (!played) continue;
    compareTurn(state, turn, played as TurnResult<unknown>, recordedResults);
    last = played;
  }
  return { result: last, divergences: state.divergences };
}

/**
 * Replays `recording` through today's `agent` and throws an `Error` whose message is a readable
 * diff (turn, step, kind, expected and actual) when today's agent acts otherwise: for vitest,
 * node:test or any runner.
 *
 * @example
 * it('still thaws a vial the way production did', async () => {
 *   await assertReplay(agent, JSON.parse(await readFile('test/recordings/thaw.json', 'utf8')));
 * });
 */
export async function assertReplay<TOutput>(
  agent: Agent<TOutput>,
  recording: Recording,
  options: ReplayOptions = {},
): Promise<ReplayResult<TOutput>> {
  const replayed = await replay(agent, recording, options);
  if (replayed.divergences.length > 0) {
    throw new Error(
      formatDivergences(`Replay of run ${recording.runId} (agent ${recording.agent})`, replayed.divergences),
    );
  }
  return replayed;
}
