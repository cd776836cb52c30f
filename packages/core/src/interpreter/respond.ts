/**
 * Resuming a paused run: `respond` and its shorthands (`answerQuestion`, `approve`, `reject`,
 * `cancelQuestion`) and `expire`. The responses are validated and applied before anything runs,
 * then the loop continues in the same call.
 */
import { pendingInteractions } from '../machine/index.js';
import type { Agent } from '../tools/index.js';
import type { Answers, BudgetLimits, TurnOptions, TurnResult } from '../types.js';
import { beginTurn } from './events.js';
import { continueTurn } from './loop.js';
import {
  applyResolutions,
  checkPlainResponses,
  prepareResolutions,
  type ResponseInput,
  responseFields,
} from './resolve.js';
import { notWaiting, resultOf } from './result.js';
import { loadRun, now, stateOf } from './run.js';

/**
 * The generic resume: applies one or more responses to pending interactions and continues the
 * run. Answering only some of them returns `needs_input` again with the rest. The shorthands below
 * copy their one response with `responseFields` and hand it over checked, so it is copied once (and
 * set its `type` on that copy: a spread then a new key leaves V8's fast path, see machine/calls.ts).
 */
export async function respond<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  responses: ResponseInput[],
  options: TurnOptions = {},
): Promise<TurnResult<TOutput>> {
  const run = loadRun(agent, snapshot, options, undefined, 'assignee');
  const resolutions = prepareResolutions(run, responses);
  // Only repeated approvals (a principal that already counted towards a quorum): nothing changes.
  if (resolutions.length === 0) return resultOf(run, snapshot);
  beginTurn(run, 'respond');
  applyResolutions(run, resolutions);
  return continueTurn(run);
}

/**
 * Answers a pending question and continues the run.
 *
 * @example
 * const r2 = await answerQuestion(agent, snapshot, { answers: { 'Cell line': 'K562-dTAG' } });
 */
export async function answerQuestion<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  answer: { id?: string; answers: Answers },
  options?: TurnOptions,
): Promise<TurnResult<TOutput>> {
  const { id, answers } = responseFields(answer);
  return respond(agent, snapshot, checkPlainResponses([{ id, type: 'answer', answers }]), options);
}

/**
 * A decision that approves: of an approval (optionally with an edited input), a budget (with
 * `extend`), or a hook's review (with `edit`, DESIGN §26).
 */
export interface ApproveDecision {
  id?: string;
  rationale?: string;
  editedInput?: unknown;
  /** Budget interactions: how much to add to each limit before going on. */
  extend?: BudgetLimits;
  /** Reviews: go on with this subject instead (checked as the point holds it). */
  edit?: unknown;
  /** `'run'`: later calls of the same tool in the run with an input judged the same pass without asking. */
  remember?: 'run';
}

/** Approves a pending tool call (optionally with an edited input) and continues: the tool runs once. */
export async function approve<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  decision: ApproveDecision = {},
  options?: TurnOptions,
): Promise<TurnResult<TOutput>> {
  return respond(
    agent,
    snapshot,
    checkPlainResponses([Object.assign(responseFields(decision), { type: 'approve' as const })]),
    options,
  );
}

/** Rejects a pending tool call: the model is told `rejected_by_user` with the rationale. */
export async function reject<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  decision: { id?: string; rationale?: string } = {},
  options?: TurnOptions,
): Promise<TurnResult<TOutput>> {
  return respond(
    agent,
    snapshot,
    checkPlainResponses([Object.assign(responseFields(decision), { type: 'reject' as const })]),
    options,
  );
}

/** Cancels a pending question or approval: the model is told `question_cancelled` / `approval_cancelled`. */
export async function cancelQuestion<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  cancel: { id?: string; reason?: string } = {},
  options?: TurnOptions,
): Promise<TurnResult<TOutput>> {
  return respond(
    agent,
    snapshot,
    checkPlainResponses([Object.assign(responseFields(cancel), { type: 'cancel' as const })]),
    options,
  );
}

/**
 * Fills in a pending input form (a tool's `ctx.ask({ input })`) and continues: the value is checked
 * against the form's JSON Schema (`ANSWER_INVALID` otherwise), then the tool's `resume` runs.
 *
 * @example
 * const r2 = await provideInput(agent, snapshot, { value: { box: 'B2-14' } });
 */
export async function provideInput<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  input: { id?: string; value: unknown },
  options?: TurnOptions,
): Promise<TurnResult<TOutput>> {
  const { id, value } = responseFields(input);
  return respond(agent, snapshot, checkPlainResponses([{ id, type: 'input', value }]), options);
}

/** Resolves every pending interaction whose `expiresAt` has passed (for a sweeper). Nothing expired: the run unchanged. */
export async function expire<TOutput>(
  agent: Agent<TOutput>,
  snapshot: string,
  options: TurnOptions = {},
): Promise<TurnResult<TOutput>> {
  const run = loadRun(agent, snapshot, options);
  if (stateOf(run) !== 'waitingInput') throw notWaiting(run, 'expire interactions');
  const at = now(run);
  const expired = pendingInteractions(run.state.context).filter(
    (interaction) => interaction.expiresAt !== null && at.getTime() >= Date.parse(interaction.expiresAt),
  );
  if (expired.length === 0) return resultOf(run, snapshot);
  // Expiry is checked before anything else, so any response to an expired interaction resolves it as expired.
  const resolutions = prepareResolutions(
    run,
    expired.map((interaction) => ({ id: interaction.id, type: 'cancel' as const })),
  );
  beginTurn(run, 'expire');
  applyResolutions(run, resolutions);
  return continueTurn(run);
}
