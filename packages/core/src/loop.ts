/**
 * The interpreter: asks the machine what to do next, performs it (a model call, a step of tools)
 * outside the machine, and feeds the outcome back as an event, until the machine rests. Also
 * `runTurn`, the entry point for new runs, new user messages and retries.
 */
import type { Agent } from './agent.js';
import { assertSerializable } from './context.js';
import { ModelError, StateError, TurnkitError } from './errors.js';
import { emit } from './events.js';
import { SUPERSEDED_RESULT } from './machine.js';
import {
  encodeRun,
  loadRun,
  newRun,
  newRunId,
  notWaiting,
  now,
  pendingOf,
  type Run,
  resultOf,
  send,
  stateOf,
  toPending,
} from './run.js';
import { runStep } from './step.js';
import type { AssistantMessage, ChatMessage, ToolCall, TurnOptions, TurnResult } from './types.js';

/** What {@link runTurn} takes. */
export interface RunTurnRequest {
  /** The user's message, or messages to start from / append. */
  input?: string | ChatMessage[];
  /** The snapshot of the run to continue; omit to start a new run. */
  snapshot?: string;
  /** Id of a new run (generated when omitted); ignored with a snapshot. */
  runId?: string;
  /** The application's state for this run; replaces the stored one when given with a snapshot. */
  context?: unknown;
}

type Trigger = 'input' | 'respond' | 'retry' | 'continue' | 'expire';

function toMessages(input: string | ChatMessage[]): ChatMessage[] {
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

/** Starts a turn: counts it and emits `turn_started`. */
export function beginTurn(run: Run, trigger: Trigger): void {
  run.turn++;
  emit(run, { type: 'turn_started', trigger });
}

/** Makes a model's message safe to keep: string arguments, unique non-empty call ids. */
function sanitize(message: AssistantMessage, step: number): AssistantMessage {
  const content = typeof message.content === 'string' ? message.content : null;
  const raw = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  if (raw.length === 0) return { role: 'assistant', content };
  const seen = new Set<string>();
  const toolCalls = raw.map((call, index): ToolCall => {
    let id = typeof call?.id === 'string' && call.id !== '' ? call.id : `call_${step}_${index}`;
    if (seen.has(id)) id = `${id}_${index}`;
    seen.add(id);
    const args = call?.function?.arguments;
    return {
      id,
      type: 'function',
      function: {
        name: typeof call?.function?.name === 'string' ? call.function.name : '',
        arguments: typeof args === 'string' ? args : (JSON.stringify(args ?? {}) ?? '{}'),
      },
    };
  });
  return { role: 'assistant', content, tool_calls: toolCalls };
}

async function callModel(run: Run): Promise<void> {
  const { agent, options } = run;
  const context = run.state.context;
  emit(run, { type: 'model_started', step: context.modelCalls + 1 });
  let response: Awaited<ReturnType<typeof agent.model.generate>>;
  try {
    response = await agent.model.generate({
      messages: [{ role: 'system', content: agent.instructions }, ...context.messages],
      tools: options.interactive === false ? agent.toolSpecs.headless : agent.toolSpecs.all,
      signal: options.signal,
      onDelta: (text) => emit(run, { type: 'model_delta', text }),
    });
  } catch (error) {
    run.usage.modelCalls++;
    if (options.signal?.aborted) return send(run, { type: 'ABORT' });
    const failure =
      error instanceof ModelError || TurnkitError.isInstance(error)
        ? error
        : new ModelError(`The model call failed: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
    return send(run, { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message: failure.message } });
  }
  run.usage.modelCalls++;
  if (options.signal?.aborted) return send(run, { type: 'ABORT' });
  if (typeof response?.message !== 'object' || response.message === null) {
    const message =
      'The model returned no assistant message. Retry the turn; if it persists, check the model adapter.';
    return send(run, { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message } });
  }
  run.usage.inputTokens += response.usage?.inputTokens ?? 0;
  run.usage.outputTokens += response.usage?.outputTokens ?? 0;
  const message = sanitize(response.message, context.modelCalls + 1);
  emit(run, {
    type: 'model_finished',
    toolCalls: message.tool_calls?.length ?? 0,
    ...(response.usage ? { usage: response.usage } : {}),
  });
  send(run, { type: 'MODEL_RESPONDED', message });
}

async function executeStep(run: Run): Promise<void> {
  const outcomes = await runStep(run);
  send(run, { type: 'TOOLS_SETTLED', outcomes });
  for (const outcome of outcomes) {
    if ('interaction' in outcome)
      emit(run, { type: 'interaction_requested', interaction: toPending(outcome.interaction) });
  }
  if (run.options.signal?.aborted && stateOf(run) === 'executingTools') send(run, { type: 'ABORT' });
}

/** Drives the machine until it rests and emits the turn's end event (sub-agents stop here). */
export async function driveToRest(run: Run): Promise<void> {
  for (;;) {
    const state = stateOf(run);
    if (state !== 'callingModel' && state !== 'executingTools') break;
    if (run.options.signal?.aborted) {
      send(run, { type: 'ABORT' });
      break;
    }
    if (state === 'callingModel') await callModel(run);
    else await executeStep(run);
  }
  const context = run.state.context;
  switch (stateOf(run)) {
    case 'completed':
      emit(run, { type: 'turn_completed', output: context.output ?? '' });
      break;
    case 'waitingInput':
      emit(run, { type: 'turn_paused', pending: pendingOf(context).map((interaction) => interaction.id) });
      break;
    case 'failed':
      emit(run, { type: 'turn_failed', error: context.error ?? { code: 'MODEL_ERROR', message: 'unknown' } });
      break;
    case 'maxSteps':
      emit(run, { type: 'turn_max_steps', maxSteps: context.maxSteps });
      break;
    default:
      emit(run, { type: 'turn_aborted' });
  }
}

/** Drives the machine until it rests, then writes the snapshot and the result. */
export async function continueTurn(run: Run): Promise<TurnResult> {
  await driveToRest(run);
  return resultOf(run, encodeRun(run));
}

/** Emits `interaction_resolved` … for each pending interaction a new user message supersedes, then sends it. */
export function sendUserMessage(run: Run, messages: ChatMessage[]): void {
  const at = now(run).toISOString();
  const before = pendingOf(run.state.context);
  send(run, { type: 'USER_MESSAGE', messages, maxSteps: run.agent.maxSteps, at });
  for (const interaction of before) {
    emit(run, {
      type: 'interaction_resolved',
      interactionId: interaction.id,
      toolCallId: interaction.toolCallId,
      kind: interaction.kind,
      resolution: 'superseded',
      result: SUPERSEDED_RESULT,
    });
  }
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
export async function runTurn(
  agent: Agent,
  request: RunTurnRequest,
  options: TurnOptions = {},
): Promise<TurnResult> {
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
    beginTurn(run, 'input');
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
    beginTurn(run, 'input');
    sendUserMessage(run, messages);
    return continueTurn(run);
  }
  switch (stateOf(run)) {
    case 'waitingInput':
      return resultOf(run, request.snapshot);
    case 'failed':
    case 'aborted':
    case 'maxSteps':
      beginTurn(run, 'retry');
      send(run, { type: 'RETRY', maxSteps: agent.maxSteps });
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
