/**
 * Runs the runnable calls of the current step, concurrently: parses and validates arguments, turns
 * calls that need a human into interactions (questions, approvals), runs the rest with their
 * timeouts, and applies the agent's parallel-question policy. Returns one outcome per call that
 * finished; calls interrupted by an abort get none and run again on retry.
 */
import type { z } from 'zod';
import { formatIssuePath } from './errors.js';
import { emit } from './events.js';
import type { CallResult, StepCall, StepOutcome, StoredInteraction } from './machine.js';
import { errorCodeOf, toolErrorResult, validationMessage } from './results.js';
import { now, type Run } from './run.js';
import { runAnswerSubagent, runSubagentCall } from './subagents.js';
import type { AnyFunctionTool, QuestionTool, ToolContext } from './tools.js';
import type { ToolCall } from './types.js';

type Draft = Omit<StoredInteraction, 'id' | 'agentPath' | 'createdAt' | 'toolCallId' | 'toolName'>;
type CallOutcome = CallResult | { draft: Draft } | undefined;

const ABORTED = Symbol('aborted');

/**
 * A promise that resolves to ABORTED when the signal fires, so an abort never waits on a tool that
 * ignores it; `dispose` removes the listener, so a long-lived signal does not collect one per step.
 */
function abortRace(signal: AbortSignal | undefined): {
  promise: Promise<typeof ABORTED> | null;
  dispose(): void;
} {
  if (!signal) return { promise: null, dispose: () => undefined };
  let listener: (() => void) | undefined;
  const promise = new Promise<typeof ABORTED>((resolve) => {
    if (signal.aborted) return resolve(ABORTED);
    listener = () => resolve(ABORTED);
    signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => listener && signal.removeEventListener('abort', listener) };
}

function expiresAt(run: Run, timeoutMs: number | undefined): string | null {
  return timeoutMs === undefined ? null : new Date(now(run).getTime() + timeoutMs).toISOString();
}

function zodIssues(error: z.ZodError): string {
  return validationMessage(error.issues.map((issue) => `- ${formatIssuePath(issue.path)}${issue.message}`));
}

/** Validates a value against a function tool's input schema. */
export function checkToolInput(
  tool: AnyFunctionTool,
  value: unknown,
): { ok: true; input: unknown } | { ok: false; error: z.ZodError } {
  const parsed = tool.input.safeParse(value);
  return parsed.success ? { ok: true, input: parsed.data } : { ok: false, error: parsed.error };
}

/** Parses and validates a function tool's raw arguments: the input, or the error result for the model. */
export function parseToolInput(
  tool: AnyFunctionTool,
  raw: string,
): { ok: true; input: unknown } | { ok: false; result: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return {
      ok: false,
      result: toolErrorResult(
        'invalid_arguments',
        `Error: Invalid JSON format\nThe arguments of ${tool.name} must be one JSON object matching its schema. Call it again with valid JSON.`,
      ),
    };
  }
  const checked = checkToolInput(tool, json);
  if (!checked.ok)
    return { ok: false, result: toolErrorResult('invalid_arguments', zodIssues(checked.error)) };
  return checked;
}

/** Turns a tool's return value into the text the model reads. */
function resultText(value: unknown, editedInput?: unknown): string {
  if (editedInput !== undefined) {
    const decorated =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { ...value, input_edited_by_user: editedInput }
        : { result: value ?? null, input_edited_by_user: editedInput };
    return JSON.stringify(decorated);
  }
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? 'null';
}

function toolContext(run: Run, toolCallId: string, signal: AbortSignal): ToolContext<never> {
  return {
    signal,
    runId: run.runId,
    toolCallId,
    agent: run.agent.name,
    agentPath: run.agentPath,
    idempotencyKey: `${run.runId}:${toolCallId}`,
    context: run.context as never,
  };
}

/** Runs `execute` once, with the tool's timeout; undefined when the turn was aborted meanwhile. */
async function execute(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  editedInput?: unknown,
): Promise<CallOutcome> {
  const turnSignal = run.options.signal;
  const timeout = tool.timeoutMs === undefined ? null : AbortSignal.timeout(tool.timeoutMs);
  const signals = [turnSignal, timeout].filter((signal): signal is AbortSignal => signal != null);
  const signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
  emit(run, { type: 'tool_started', toolCallId: call.id, toolName: tool.name });
  run.usage.toolCalls++;
  let result: string;
  try {
    const work = Promise.resolve().then(() =>
      tool.execute(input as never, toolContext(run, call.id, signal)),
    );
    const abort = abortRace(signal);
    const raced = await Promise.race([work, abort.promise].filter(Boolean)).finally(abort.dispose);
    if (raced === ABORTED) {
      work.catch(() => undefined);
      if (turnSignal?.aborted) return undefined;
      result = toolErrorResult(
        'tool_timeout',
        `${tool.name} did not finish within ${tool.timeoutMs} ms and was stopped. Try again later or with a smaller request.`,
      );
    } else {
      result = resultText(raced, editedInput);
    }
  } catch (error) {
    if (turnSignal?.aborted) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    result = toolErrorResult('tool_error', `${tool.name} failed: ${message}`);
  }
  const errorCode = errorCodeOf(result);
  emit(run, {
    type: 'tool_finished',
    toolCallId: call.id,
    toolName: tool.name,
    ok: !errorCode,
    ...(errorCode ? { errorCode } : {}),
  });
  return { result };
}

function askQuestion(run: Run, tool: QuestionTool, call: ToolCall, notAlone: boolean): CallOutcome {
  if (notAlone) {
    return {
      result: toolErrorResult(
        'question_not_alone',
        `${tool.name} must be the only tool called in its step. The other calls ran; ask again on its own if you still need to.`,
      ),
    };
  }
  if (run.options.interactive === false) {
    return {
      result: toolErrorResult(
        'user_input_unavailable',
        'No user can answer questions in this run (it is headless). Make reasonable assumptions, state them, and go on.',
      ),
    };
  }
  const parsed = tool.parse(call.function.arguments);
  if (!parsed.ok) return { result: toolErrorResult('invalid_arguments', parsed.message) };
  return {
    draft: {
      kind: 'question',
      questions: parsed.questions,
      expiresAt: expiresAt(run, tool.timeoutMs),
      onExpire: tool.onExpire,
      schemaHash: tool.schemaHash,
    },
  };
}

async function startCall(run: Run, tool: AnyFunctionTool, call: ToolCall): Promise<CallOutcome> {
  const parsed = parseToolInput(tool, call.function.arguments);
  if (!parsed.ok) return { result: parsed.result };
  if (tool.needsApproval) {
    let decision: boolean | string;
    try {
      decision =
        typeof tool.needsApproval === 'function'
          ? await tool.needsApproval(
              parsed.input as never,
              toolContext(run, call.id, run.options.signal ?? new AbortController().signal),
            )
          : tool.needsApproval;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        result: toolErrorResult(
          'tool_error',
          `${tool.name} could not decide whether it needs approval: ${message}`,
        ),
      };
    }
    if (decision !== false) {
      return {
        draft: {
          kind: 'approval',
          input: call.function.arguments === '' ? '{}' : call.function.arguments,
          ...(typeof decision === 'string' ? { reason: decision } : {}),
          expiresAt: expiresAt(run, tool.approvalTimeoutMs),
          schemaHash: tool.schemaHash,
        },
      };
    }
  }
  return execute(run, tool, call, parsed.input);
}

async function runCall(
  run: Run,
  stepCall: StepCall,
  call: ToolCall,
  notAlone: boolean,
): Promise<CallOutcome> {
  const tool = run.agent.toolIndex.get(call.function.name);
  if (!tool) {
    const names = [...run.agent.toolIndex.keys()].join(', ') || 'none';
    return {
      result: toolErrorResult(
        'unknown_tool',
        `There is no tool named ${JSON.stringify(call.function.name)}. Available tools: ${names}.`,
      ),
    };
  }
  if (tool.kind === 'question') return askQuestion(run, tool, call, notAlone);
  if (tool.builtin === 'answer_subagent') return runAnswerSubagent(run, tool, call);
  if (tool.subagent) {
    emit(run, { type: 'tool_started', toolCallId: call.id, toolName: tool.name });
    run.usage.toolCalls++;
    const outcome = await runSubagentCall(
      run,
      tool,
      call,
      stepCall.status === 'resuming' ? stepCall.child : undefined,
    );
    if (outcome && 'result' in outcome) {
      const errorCode = errorCodeOf(outcome.result);
      emit(run, {
        type: 'tool_finished',
        toolCallId: call.id,
        toolName: tool.name,
        ok: !errorCode,
        ...(errorCode ? { errorCode } : {}),
      });
    }
    return outcome;
  }
  if (stepCall.status === 'approved') {
    const raw = stepCall.approvedInput ?? call.function.arguments;
    const parsed = parseToolInput(tool, raw);
    if (!parsed.ok) return { result: parsed.result };
    return execute(run, tool, call, parsed.input, stepCall.edited ? JSON.parse(raw) : undefined);
  }
  return startCall(run, tool, call);
}

/** Runs the step's runnable calls and returns their outcomes (in call order). */
export async function runStep(run: Run): Promise<StepOutcome[]> {
  const context = run.state.context;
  const step = context.step ?? [];
  const last = context.messages[context.messages.length - 1];
  const calls = new Map(
    (last?.role === 'assistant' ? (last.tool_calls ?? []) : []).map((call) => [call.id, call]),
  );
  const isQuestion = (stepCall: StepCall) => run.agent.toolIndex.get(stepCall.toolName)?.kind === 'question';
  const notAlone =
    run.agent.parallel === 'reject' && step.some(isQuestion) && step.some((call) => !isQuestion(call));
  const runnable = step.filter(
    (call) => call.status === 'queued' || call.status === 'approved' || call.status === 'resuming',
  );
  const abort = abortRace(run.options.signal);
  const aborted = abort.promise;
  const settled = await Promise.all(
    runnable.map(async (stepCall) => {
      const call = calls.get(stepCall.toolCallId);
      if (!call) return { result: toolErrorResult('tool_error', 'The call is missing from the transcript.') };
      const work = runCall(run, stepCall, call, notAlone && isQuestion(stepCall));
      const raced = aborted ? await Promise.race([work, aborted]) : await work;
      return raced === ABORTED ? undefined : raced;
    }),
  ).finally(abort.dispose);
  const outcomes: StepOutcome[] = [];
  let waiting = step.filter((call) => call.status === 'pending').length;
  let created = context.interactionCount;
  runnable.forEach((stepCall, index) => {
    const outcome = settled[index];
    if (!outcome) return;
    if ('result' in outcome) {
      outcomes.push({ toolCallId: stepCall.toolCallId, ...outcome });
      return;
    }
    if (run.agent.parallel === 'single' && waiting > 0) {
      const result = toolErrorResult(
        'interaction_pending',
        'Another question or approval is already waiting for the user. Ask again after it is answered.',
      );
      outcomes.push({ toolCallId: stepCall.toolCallId, result });
      return;
    }
    waiting++;
    if ('child' in outcome) {
      outcomes.push({ toolCallId: stepCall.toolCallId, child: outcome.child });
      return;
    }
    const interaction: StoredInteraction = {
      ...outcome.draft,
      id: `${run.idPrefix}:${++created}`,
      toolCallId: stepCall.toolCallId,
      toolName: stepCall.toolName,
      agentPath: run.agentPath,
      createdAt: now(run).toISOString(),
    };
    outcomes.push({ toolCallId: stepCall.toolCallId, interaction });
  });
  return outcomes;
}
