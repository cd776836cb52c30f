/**
 * What a call returns: the public status of a machine state, the public form of pending
 * interactions, the `TurnResult`, and the NOT_WAITING error that says what to do instead.
 */
import { StateError } from '../errors.js';
import { reviewPayload } from '../hooks/index.js';
import { type LoopStateName, pendingInteractions, type StoredInteraction } from '../machine/index.js';
import type { PendingInteraction, TurnResult, TurnResultFields, TurnStatus } from '../types.js';
import { limitsOf, spentOf } from './budget.js';
import { completedOutput } from './output.js';
import { type Run, stateOf } from './run.js';

/** Public status of a state name. */
export function statusOf(value: LoopStateName): TurnStatus {
  switch (value) {
    case 'waitingInput':
      return 'needs_input';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'maxSteps':
      return 'max_steps';
    case 'aborted':
      return 'aborted';
    case 'budgetExceeded':
      return 'budget_exceeded';
    case 'blocked':
      return 'blocked';
    default:
      return 'running';
  }
}

/** The public form of a stored interaction. */
export function toPending(interaction: StoredInteraction): PendingInteraction {
  const { id, kind, toolCallId, toolName, agentPath, createdAt, expiresAt } = interaction;
  const pending: PendingInteraction = {
    id,
    kind,
    toolCallId,
    toolName,
    agentPath,
    createdAt,
    expiresAt,
    payload: payloadOf(interaction),
  };
  if (interaction.ask) pending.askedByTool = true;
  if (interaction.assignees) pending.assignees = interaction.assignees;
  if (interaction.quorum !== undefined) pending.quorum = interaction.quorum;
  if (interaction.allowRequester !== undefined) pending.allowRequester = interaction.allowRequester;
  if (interaction.approvals) pending.approvals = interaction.approvals;
  if (interaction.review && interaction.kind !== 'review') pending.review = reviewPayload(interaction);
  return pending;
}

function payloadOf(interaction: StoredInteraction): PendingInteraction['payload'] {
  switch (interaction.kind) {
    case 'question':
      return { questions: interaction.questions ?? [] };
    case 'input':
      return { message: interaction.form?.message ?? '', schema: interaction.form?.schema ?? {} };
    case 'budget':
      return interaction.budget!;
    case 'review':
      return reviewPayload(interaction);
    case 'approval':
    case 'in_doubt':
      return {
        toolName: interaction.toolName,
        input: JSON.parse(interaction.input ?? 'null') as unknown,
        ...(interaction.reason !== undefined ? { reason: interaction.reason } : {}),
      };
  }
}

/**
 * The TurnResult of a run and its snapshot string. `status` overrides (sessions report `running`).
 *
 * `snapshot` may be given as a function (sessions over a store in row layout 2, DESIGN §17): the
 * result's `snapshot` is then a getter that builds the string on first read and keeps it, so a
 * caller that never reads it never pays for assembling (and copying) the whole history. The result
 * stays a plain object: `snapshot` is an own, enumerable property, so spreading the result or
 * `JSON.stringify` include it (and build it then); assigning it replaces it like any property.
 */
export function resultOf<TOutput>(
  run: Run,
  snapshot: string | (() => string),
  status: TurnStatus = statusOf(stateOf(run)),
): TurnResult<TOutput> {
  const context = run.state.context;
  const pending = status === 'needs_input' ? pendingInteractions(context).map(toPending) : [];
  const result: TurnResultFields = {
    runId: run.runId,
    status,
    needsInput: status === 'needs_input',
    pendingQuestion: pending[0] ?? null,
    pending,
    output: status === 'completed' ? completedOutput(run) : null,
    snapshot: typeof snapshot === 'string' ? snapshot : '',
    messages: context.messages,
    events: run.events,
    usage: run.usage,
    spend: spentOf(run),
    error: status === 'failed' || status === 'blocked' ? context.error : null,
    activeAgent: run.agent.name,
  };
  const budget = limitsOf(run);
  if (budget) result.budget = budget;
  if (typeof snapshot === 'function') lazySnapshot(result, snapshot);
  // The fields agree with `status` (and `output` with the agent's schema), as the union says.
  return result as TurnResult<TOutput>;
}

/** Turns `result.snapshot` into a getter that calls `build` once (the key keeps its place). */
function lazySnapshot(result: TurnResultFields, build: () => string): void {
  const settle = (value: string) => {
    Object.defineProperty(result, 'snapshot', {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    return value;
  };
  Object.defineProperty(result, 'snapshot', {
    enumerable: true,
    configurable: true,
    get: () => settle(build()),
    set: settle,
  });
}

/** Throws NOT_WAITING with a message that says what state the run is in and what to do instead. */
export function notWaiting(run: Run, action: string): StateError {
  const status = statusOf(stateOf(run));
  const advice =
    status === 'completed'
      ? 'The run has completed: send the next user message with runTurn(agent, { snapshot, input }).'
      : status === 'running'
        ? 'The run is being worked on: load its latest snapshot and try again.'
        : 'Call runTurn(agent, { snapshot }) to retry it, or send a new user message.';
  return new StateError(
    'NOT_WAITING',
    `Cannot ${action}: the run is not waiting for input (status ${status}). ${advice}`,
  );
}
