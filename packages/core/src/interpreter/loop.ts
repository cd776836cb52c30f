/**
 * The interpreter's loop: asks the machine what to do next, performs it (a model call, a step of
 * tools) outside the machine, and feeds the outcome back as an event, until the machine rests.
 */
import { ModelError, publicModelMessage } from '../errors.js';
import { COMPACT } from '../keys.js';
import { type HookResume, pendingInteractions, SUPERSEDED_RESULT } from '../machine/index.js';
import { mergeModelSettings } from '../tools/index.js';
import type { AssistantMessage, ChatMessage, ModelRequest, ToolCall, TurnResult } from '../types.js';
import { costOf, limitsOf, pauseForBudget, spendModelCall, spentOf } from './budget.js';
import type { Compactor } from './compaction.js';
import { emit, emitResolved } from './events.js';
import { inputFilterError, modelMessages, sendSettling } from './handoff-switch.js';
import { hookRuntime, hooksFor } from './hook-runtime.js';
import { checkFinalAnswer, outputFeedback } from './output.js';
import { resultOf, toPending } from './result.js';
import { encodeRun, nowIso, type Run, send, stateOf, tracingOf } from './run.js';
import { runStep } from './step.js';

/** The end of a model call's span when the run is not traced. */
function noSpan(): void {}

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

/** Hands an operator-only error to `onError`, whose failures never reach the run. */
function report(run: Run, error: unknown): void {
  try {
    run.options.onError?.(error, { runId: run.runId, agentPath: run.agentPath });
  } catch {
    // An observer's bug must not change the run it observes.
  }
}

/**
 * The system message for the next model call: the agent's string, or what its `instructions`
 * function makes of the run's context now. A function that throws (or returns no string) is
 * reported to `onError` and comes back as the turn's error, the model not called.
 */
async function instructionsFor(run: Run): Promise<string | { code: string; message: string }> {
  const { instructions, name } = run.agent;
  if (typeof instructions === 'string') return instructions;
  try {
    const text = await instructions({ context: run.context, runId: run.runId, agentPath: run.agentPath });
    if (typeof text === 'string') return text;
    throw new TypeError(`the instructions function returned ${typeof text}, not a string`);
  } catch (error) {
    report(run, error);
    return {
      code: 'INSTRUCTIONS_ERROR',
      message: `The instructions of agent ${name} could not be made (its function failed; the error went to onError). Fix it, then retry the turn.`,
    };
  }
}

/** What the model receives: `settings` and `responseFormat` only when the agent or the call has them. */
function modelRequest(run: Run, instructions: string): ModelRequest {
  const { agent, options } = run;
  const request: ModelRequest = {
    messages: [{ role: 'system', content: instructions }, ...modelMessages(run)],
    tools:
      options.interactive === false
        ? agent.toolSpecs.headless
        : run.routed
          ? agent.toolSpecs.routed
          : agent.toolSpecs.all,
    signal: options.signal,
    onDelta: (text) => emit(run, { type: 'model_delta', text }),
  };
  // A sub-agent inherits its parent's options, not the settings of its parent's call.
  const settings = run.parent
    ? agent.modelSettings
    : mergeModelSettings(agent.modelSettings, options.modelSettings);
  if (settings) request.settings = settings;
  if (agent.responseFormat) request.responseFormat = agent.responseFormat;
  return request;
}

/**
 * Feeds a model's message to the machine. A final answer (no tool calls) of an agent with an
 * `output` schema must parse: one that does not goes back to the model with its issues.
 */
function responded(run: Run, message: AssistantMessage): void {
  const schema = run.agent.output;
  if (schema && !message.tool_calls) {
    const checked = checkFinalAnswer(schema, message.content ?? '');
    if (!checked.ok) {
      send(run, { type: 'OUTPUT_REJECTED', message, feedback: outputFeedback(checked.issues) });
      return;
    }
    run.finalOutput = { value: checked.value };
  }
  send(run, { type: 'MODEL_RESPONDED', message });
}

/** The request for the next model call: instructions, compaction (DESIGN §22), then the beforeModel hooks. */
async function requestFor(run: Run): Promise<ModelRequest | undefined> {
  const instructions = await instructionsFor(run);
  if (typeof instructions !== 'string') return void send(run, { type: 'MODEL_FAILED', error: instructions });
  // Long runs (DESIGN §22): the oldest messages may be compacted before the request is sent.
  let request: ModelRequest;
  try {
    request = modelRequest(run, instructions);
  } catch (error) {
    report(run, error);
    return void send(run, { type: 'MODEL_FAILED', error: inputFilterError(run) });
  }
  const compact = run.agent.history?.[COMPACT] as Compactor | undefined;
  const compaction = compact ? await compact(run, request) : 'fits';
  if (compaction === 'aborted') return void send(run, { type: 'ABORT' });
  if (typeof compaction === 'object') {
    if (compaction.cause !== undefined) report(run, compaction.cause);
    return void send(run, { type: 'MODEL_FAILED', error: compaction.error });
  }
  if (compaction === 'compacted') request = modelRequest(run, instructions);
  const hooks = hookRuntime(run);
  if (!hooks) return request;
  const before = hooks.beforeModelPoint(run, request);
  return hooks.modelPoint(run, before instanceof Promise ? await before : before);
}

async function callModel(run: Run): Promise<void> {
  const { agent, options } = run;
  const context = run.state.context;
  // A model point's review decided (DESIGN §26): that point goes on with what it reviewed (after
  // an afterModel review, the reviewed response; the model is not called again).
  const resume = context.hookResume;
  const request = resume
    ? await hooksFor(run).resumedModelPoint(
        run,
        resume,
        (instructions) => modelRequest(run, instructions),
        (message) => responded(run, sanitize(message, context.modelCalls + 1)),
      )
    : await requestFor(run);
  if (!request) return;
  emit(run, { type: 'model_started', step: context.modelCalls + 1 });
  const endSpan = tracingOf(run)?.modelSpan(run, context.modelCalls + 1) ?? noSpan;
  let response: Awaited<ReturnType<typeof agent.model.generate>>;
  try {
    response = await agent.model.generate(request);
  } catch (error) {
    run.usage.modelCalls++;
    spendModelCall(run, undefined, 0);
    if (options.signal?.aborted) {
      endSpan({ outcome: 'aborted' });
      return send(run, { type: 'ABORT' });
    }
    endSpan({ outcome: 'failed', errorCode: 'MODEL_ERROR' });
    report(run, error);
    const message = error instanceof ModelError ? error.publicMessage : publicModelMessage(undefined);
    return send(run, { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message } });
  }
  run.usage.modelCalls++;
  const costUsd = costOf(run, response);
  spendModelCall(run, response, costUsd);
  if (options.signal?.aborted) {
    endSpan({ outcome: 'aborted' });
    return send(run, { type: 'ABORT' });
  }
  if (typeof response?.message !== 'object' || response.message === null) {
    endSpan({ outcome: 'failed', errorCode: 'MODEL_ERROR' });
    const message =
      'The model returned no assistant message. Retry the turn; if it persists, check the model adapter.';
    return send(run, { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message } });
  }
  run.usage.inputTokens += response.usage?.inputTokens ?? 0;
  run.usage.outputTokens += response.usage?.outputTokens ?? 0;
  // The cost goes on the span when it is known: priced by the agent, or reported by the adapter.
  const priced = agent.pricing !== undefined || response.costUsd !== undefined;
  endSpan({
    outcome: 'completed',
    ...(response.usage ? { usage: response.usage } : {}),
    ...(priced ? { costUsd } : {}),
  });
  const message = sanitize(response.message, context.modelCalls + 1);
  emit(run, {
    type: 'model_finished',
    toolCalls: message.tool_calls?.length ?? 0,
    ...(response.usage ? { usage: response.usage } : {}),
    message,
  });
  // afterModel hooks (DESIGN §26); a failure keeps the response, so a retry does not call the model again.
  const hooks = hookRuntime(run);
  if (!hooks) return responded(run, message);
  const held = (): HookResume => ({
    point: 'afterModel',
    hook: '',
    from: 0,
    subject: JSON.stringify(hooks.responseSubject(message)),
  });
  const after = hooks.afterModelPoint(run, message);
  const kept = hooks.modelPoint(run, after instanceof Promise ? await after : after, held);
  if (kept) responded(run, kept === message ? message : sanitize(kept, context.modelCalls + 1));
}

async function executeStep(run: Run): Promise<void> {
  const { outcomes, failure } = await runStep(run, driveToRest);
  // A hook failed (DESIGN §26): the other calls' outcomes are kept and the turn fails.
  if (failure) return send(run, { type: 'HOOK_FAILED', outcomes, error: hooksFor(run).hookError(failure) });
  sendSettling(run, { type: 'TOOLS_SETTLED', outcomes });
  for (const outcome of outcomes) {
    if ('interaction' in outcome)
      emit(run, { type: 'interaction_requested', interaction: toPending(outcome.interaction) });
  }
  if (run.options.signal?.aborted && stateOf(run) === 'executingTools') send(run, { type: 'ABORT' });
}

/** Drives the machine until it rests and emits the turn's end event (sub-agents stop here). */
export async function driveToRest(run: Run): Promise<void> {
  const tracing = tracingOf(run);
  tracing?.openRunSpan(run);
  try {
    let stepEnded = false;
    for (;;) {
      const state = stateOf(run);
      if (state !== 'callingModel' && state !== 'executingTools') break;
      // Sessions record a step's results before the model is called again (a sub-agent's are
      // recorded with its parent's step).
      if (stepEnded && state === 'callingModel' && run.fence && !run.parent) await run.fence.record(run);
      stepEnded = false;
      // Sessions' fence: a worker that may have lost its claim starts no further model or tool call.
      if (run.options.signal?.aborted || (run.fence !== undefined && !(await run.fence.holds()))) {
        send(run, { type: 'ABORT' });
        break;
      }
      const budget = pauseForBudget(run);
      if (budget) {
        emit(run, { type: 'interaction_requested', interaction: toPending(budget) });
        break;
      }
      if (state === 'callingModel') {
        // Messages queued while the turn played (DESIGN §30) join the transcript before the model reads it.
        if (!run.parent) run.fence?.lateInput?.(run);
        await callModel(run);
      } else {
        await executeStep(run);
        stepEnded = true;
      }
    }
    emitTurnEnd(run);
  } finally {
    tracing?.closeRunSpan(run);
  }
}

/** Emits the one event that ends a turn: completed, paused, failed, max steps or aborted. */
function emitTurnEnd(run: Run): void {
  const context = run.state.context;
  switch (stateOf(run)) {
    case 'completed':
      emit(run, { type: 'turn_completed', output: context.output ?? '' });
      break;
    case 'waitingInput':
      emit(run, {
        type: 'turn_paused',
        pending: pendingInteractions(context).map((interaction) => interaction.id),
      });
      break;
    case 'failed':
      emit(run, { type: 'turn_failed', error: context.error ?? { code: 'MODEL_ERROR', message: 'unknown' } });
      break;
    case 'maxSteps':
      emit(run, { type: 'turn_max_steps', maxSteps: context.maxSteps });
      break;
    case 'budgetExceeded':
      emit(run, { type: 'turn_budget_exceeded', spent: spentOf(run), limit: limitsOf(run) ?? {} });
      break;
    case 'blocked':
      emit(run, { type: 'turn_blocked', error: context.error ?? { code: 'BLOCKED', message: 'blocked' } });
      break;
    default:
      emit(run, { type: 'turn_aborted' });
  }
}

/** Drives the machine until it rests, then writes the snapshot and the result. */
export async function continueTurn<TOutput>(run: Run): Promise<TurnResult<TOutput>> {
  await driveToRest(run);
  return resultOf<TOutput>(run, encodeRun(run));
}

/** Emits `interaction_resolved` … for each pending interaction a new user message supersedes, then sends it. */
export function sendUserMessage(run: Run, messages: ChatMessage[]): void {
  const at = nowIso(run);
  const before = pendingInteractions(run.state.context);
  // Calls that may have run (sessions found them in doubt) are never told "dropped".
  const results = run.doubt?.superseded(run.state.context);
  sendSettling(run, {
    type: 'USER_MESSAGE',
    messages,
    maxSteps: run.agent.maxSteps,
    at,
    ...(results ? { results } : {}),
  });
  for (const { id, toolCallId, kind } of before) {
    const result = results?.[toolCallId] ?? SUPERSEDED_RESULT;
    emitResolved(run, { id, toolCallId, kind, resolution: 'superseded', at }, result);
  }
  for (const interaction of before) {
    const { id, toolCallId, kind } = interaction;
    tracingOf(run)?.traceResolved(run, interaction, { id, toolCallId, kind, resolution: 'superseded', at });
  }
}
