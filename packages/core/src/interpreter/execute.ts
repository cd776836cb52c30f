/**
 * Running a function tool's code once — `execute`, or `resume` after a `ctx.ask` was answered —
 * with its context, its timeout and the turn's abort; and the text the model reads (the return
 * value, or a `tool_error` / `tool_timeout` result), unless the code asked a human again.
 */
import { errorCodeOf, toolErrorResult } from '../results.js';
import type { AnyFunctionTool, AskResponse, AskSignal, ToolContext } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import { ABORTED, abortRace } from './abort.js';
import { askSignal, isAskSignal } from './ask.js';
import { spendToolCall } from './budget.js';
import { contextErrorMessage, guarded, type Settled } from './context-guard.js';
import { emit } from './events.js';
import { type Run, tracingOf } from './run.js';

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

/** The `ctx` a tool's `execute` and `needsApproval` receive. */
export function toolContext(run: Run, toolCallId: string, signal: AbortSignal): ToolContext<never> {
  return {
    signal,
    runId: run.runId,
    toolCallId,
    agent: run.agent.name,
    agentPath: run.agentPath,
    idempotencyKey: `${run.runId}:${toolCallId}`,
    context: run.context as never,
    ask: askSignal,
  };
}

/** The message the model reads for a thrown error: the tool's or the agent's redaction, else the error's own. */
function errorText(run: Run, tool: AnyFunctionTool, error: unknown): string {
  const redact = tool.errorMessage ?? run.agent.toolErrorMessage;
  try {
    if (redact) return String(redact(error));
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'it threw an error that could not be read';
  }
}

/** The result text of a settled tool's code: its context problem first, then its error, then its value. */
function settledText(run: Run, tool: AnyFunctionTool, settled: Settled, editedInput?: unknown): string {
  if (settled.problem) return toolErrorResult('tool_error', contextErrorMessage(tool.name, settled.problem));
  if (!settled.ok)
    return toolErrorResult('tool_error', `${tool.name} failed: ${errorText(run, tool, settled.error)}`);
  try {
    return resultText(settled.value, editedInput);
  } catch (error) {
    return toolErrorResult(
      'tool_error',
      `${tool.name} returned a value that is not JSON data: ${errorText(run, tool, error)}`,
    );
  }
}

/** What running a tool's code came to: its result, a `ctx.ask` to turn into an interaction, or nothing (aborted). */
export type ExecutionOutcome = { result: string } | { ask: AskSignal } | undefined;

/**
 * Runs `execute` (or, with `response`, the tool's `resume`) once, with the tool's timeout;
 * undefined when the turn was aborted meanwhile.
 */
export async function execute(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  options: { editedInput?: unknown; response?: AskResponse; reconcile?: boolean } = {},
): Promise<ExecutionOutcome> {
  const turnSignal = run.options.signal;
  // In store mode the call is recorded started first (tools in doubt, DESIGN §21); a worker that
  // lost the run meanwhile does not start it. Reconciling runs no side effect: nothing to record.
  if (!options.reconcile) {
    await run.doubt?.markStarted(run, call.id, tool.schemaHash);
    if (turnSignal?.aborted) return undefined;
  }
  const timeout = tool.timeoutMs === undefined ? null : AbortSignal.timeout(tool.timeoutMs);
  const signals = [turnSignal, timeout].filter((signal): signal is AbortSignal => signal != null);
  // One source is handed on as it is: `AbortSignal.any` keeps weak references and a finalizer per
  // signal it makes, which showed as garbage-collector time on every store-mode tool call.
  const signal =
    signals.length === 0
      ? new AbortController().signal
      : signals.length === 1
        ? signals[0]!
        : AbortSignal.any(signals);
  startTool(run, call.id, tool.name, options.response !== undefined);
  const ctx = toolContext(run, call.id, signal);
  const { response, editedInput, reconcile } = options;
  const work = guarded(run, () =>
    reconcile && typeof tool.onInDoubt === 'function'
      ? tool.onInDoubt(input as never, ctx)
      : response
        ? tool.resume!(input as never, response, ctx)
        : tool.execute(input as never, ctx),
  );
  const abort = abortRace(signal);
  const raced = await Promise.race([work, abort.promise].filter(Boolean)).finally(abort.dispose);
  let result: string;
  if (raced === ABORTED) {
    // An interrupted call gets no result (it runs again on retry); a timed-out one is told so.
    if (turnSignal?.aborted) return undefined;
    result = toolErrorResult(
      'tool_timeout',
      `${tool.name} did not finish within ${tool.timeoutMs} ms and was stopped. Try again later or with a smaller request.`,
    );
  } else {
    const settled = raced as Settled;
    if (settled.ok && !settled.problem && isAskSignal(settled.value)) return { ask: settled.value };
    result = settledText(run, tool, settled, editedInput);
  }
  finishTool(run, call.id, tool.name, result);
  return { result };
}

/**
 * Runs a tool's `needsApproval`: `false`, `true` or a reason string, or the `tool_error` result when
 * it throws or leaves a context a snapshot cannot keep (it is the tool's own code, checked alike).
 */
export async function decideApproval(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
): Promise<boolean | string | { result: string }> {
  const decider = tool.needsApproval;
  if (typeof decider !== 'function') return decider ?? false;
  const signal = run.options.signal ?? new AbortController().signal;
  const settled = await guarded(run, () => decider(input as never, toolContext(run, call.id, signal)));
  if (settled.problem) {
    return { result: toolErrorResult('tool_error', contextErrorMessage(tool.name, settled.problem)) };
  }
  if (!settled.ok) {
    const reason = errorText(run, tool, settled.error);
    return {
      result: toolErrorResult(
        'tool_error',
        `${tool.name} could not decide whether it needs approval: ${reason}`,
      ),
    };
  }
  return settled.value as boolean | string;
}

/**
 * Counts a call that starts running and emits `tool_started`. A call that `resumed` (its `resume`
 * after an ask, or its paused sub-agent going on) is the same call: the run's budget counts it once.
 */
export function startTool(run: Run, toolCallId: string, toolName: string, resumed = false): void {
  emit(run, { type: 'tool_started', toolCallId, toolName });
  run.usage.toolCalls++;
  if (!resumed) spendToolCall(run);
  tracingOf(run)?.startToolSpan(run, toolCallId, toolName);
}

/** Emits `tool_finished` for a call's result text (ok unless it is an error result). */
export function finishTool(run: Run, toolCallId: string, toolName: string, result: string): void {
  const errorCode = errorCodeOf(result);
  emit(run, {
    type: 'tool_finished',
    toolCallId,
    toolName,
    ok: !errorCode,
    ...(errorCode ? { errorCode } : {}),
    result,
  });
  tracingOf(run)?.endToolSpan(
    run,
    toolCallId,
    errorCode ? { outcome: 'failed', errorCode } : { outcome: 'completed' },
  );
}
