/**
 * `runTurn`, the entry point for new runs, new user messages and retries.
 */
import { StateError, TurnkitError } from '../errors.js';
import { assertSerializable } from '../snapshot/index.js';
import type { Agent } from '../tools/index.js';
import type { ChatMessage, TurnOptions, TurnResult } from '../types.js';
import { beginTurn } from './events.js';
import { sendSettling } from './handoff-switch.js';
import { continueTurn, sendUserMessage } from './loop.js';
import { notWaiting, resultOf } from './result.js';
import { loadRun, newRun, newRunId, send, stateOf } from './run.js';

/** What {@link runTurn} takes. */
export interface RunTurnRequest {
  /** The user's message, or messages to start from / append. */
  input?: string | ChatMessage[];
  /** The snapshot of the run to continue; omit (or undefined) to start a new run. */
  snapshot?: string | undefined;
  /** Id of a new run (generated when omitted); ignored with a snapshot. */
  runId?: string | undefined;
  /** The application's state for this run; replaces the stored one when given with a snapshot. */
  context?: unknown;
}

/** A user message or messages from a caller, checked: no system message (that is the agent's `instructions`). */
export function toMessages(input: string | ChatMessage[]): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) {
    throw new TurnkitError('CONFIG_INVALID', '`input` must be a string or an array of chat messages.');
  }
  for (const message of input) {
    if (message?.role === 'system') {
      throw new TurnkitError(
        'CONFIG_INVALID',
        'A system message cannot be part of `input`: put it in the agent `instructions`, which are sent first on every model call.',
      );
    }
  }
  return input;
}

/**
 * Runs one turn: starts a run (`input`, no `snapshot`), sends the next user message (`snapshot` and
 * `input`), or continues a run (`snapshot` only: retries a failed or aborted run, gives a
 * `max_steps` run a fresh step budget, returns a `needs_input` run unchanged).
 *
 * @example
 * const r1 = await runTurn(agent, { input: 'Thaw one K562 vial' });
 * if (r1.needsInput) save(r1.snapshot);
 */
export async function runTurn<TOutput>(
  agent: Agent<TOutput>,
  request: RunTurnRequest,
  options: TurnOptions = {},
): Promise<TurnResult<TOutput>> {
  if (typeof request !== 'object' || request === null) {
    throw new TurnkitError('CONFIG_INVALID', 'runTurn takes { input?, snapshot?, runId?, context? }.');
  }
  if (request.context !== undefined) assertSerializable(request.context, agent.serializer);
  if (request.snapshot === undefined) {
    if (request.input === undefined) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        'runTurn needs an `input` to start a run, or a `snapshot` to continue one.',
      );
    }
    const run = newRun(agent, request.runId ?? newRunId(), request.context, options);
    const messages = toMessages(request.input);
    beginTurn(run, 'input', messages);
    send(run, { type: 'START', messages, maxSteps: agent.maxSteps });
    return continueTurn(run);
  }
  const run = loadRun(agent, request.snapshot, options, request.context);
  const state = stateOf(run);
  if (request.input !== undefined && (state === 'callingModel' || state === 'executingTools')) {
    throw new StateError(
      'NOT_WAITING',
      'This snapshot holds a turn still in progress (a session claim): finish it first with runTurn(agent, { snapshot }), then send the message with the snapshot that returns.',
    );
  }
  if (request.input !== undefined) {
    const messages = toMessages(request.input);
    beginTurn(run, 'input', messages);
    sendUserMessage(run, messages);
    return continueTurn(run);
  }
  switch (stateOf(run)) {
    case 'waitingInput':
      return resultOf(run, request.snapshot);
    case 'failed':
    case 'aborted':
    case 'maxSteps':
    case 'budgetExceeded':
    case 'blocked':
      beginTurn(run, 'retry');
      sendSettling(run, { type: 'RETRY', maxSteps: agent.maxSteps });
      return continueTurn(run);
    case 'callingModel':
    case 'executingTools':
      beginTurn(run, 'continue');
      return continueTurn(run);
    default:
      if (stateOf(run) === 'completed') throw notWaiting(run, 'continue the run without a new message');
      throw new StateError(
        'NOT_WAITING',
        'The snapshot holds a run that never started: start it with an `input`.',
      );
  }
}
