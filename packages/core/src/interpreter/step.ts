/**
 * Runs the runnable calls of the current step, concurrently: parses and validates arguments, turns
 * calls that need a human into interactions (questions, approvals, a tool's own `ctx.ask`), runs
 * the rest with their timeouts (and `resume` for calls whose ask was answered), and applies the
 * agent's parallel-question policy. Returns one outcome per call that
 * finished; calls interrupted by an abort get none and run again on retry.
 */
import { HANDOFF_IGNORED, transferCalls } from '../handoffs/index.js';
import { type HookFailure, inputKey, isRemembered, TOOL_APPROVAL } from '../hooks/index.js';
import { TOOL_CODE } from '../keys.js';
import {
  type CallResult,
  extend,
  type StepCall,
  type StepOutcome,
  type StoredInteraction,
} from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool, QuestionTool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import { ABORTED, abortRace } from './abort.js';
import type { AskDraft } from './ask.js';
import type { DriveToRest } from './child.js';
import { driftResult } from './drift.js';
import { type execute, finishTool } from './execute.js';
import { codelessCall, notRun } from './handoff-switch.js';
import { afterTool, beforeTool, hooksFor } from './hook-runtime.js';
import { now, nowIso, type Run, tracingOf } from './run.js';
import type { playAgentToolCall } from './subagent-call.js';
import type { ToolCode } from './tool-code.js';
import { parseToolInput } from './tool-input.js';

/** A hook failed (DESIGN §26): the turn fails; a call whose tool ran holds its result (`resume`). */
type HookFailed = { failed: HookFailure; resume?: StoredInteraction; askResponse?: string };

type CallOutcome = CallResult | { draft: AskDraft } | HookFailed | undefined;

/**
 * The code a tool carries (`defineTool`'s, `askUserQuestion`'s, `handoff`'s; DESIGN §18), or
 * undefined for one made otherwise: a plain agent's transfer tool, whose call {@link codelessCall}
 * runs, or a tool the loop cannot run ({@link notRun}).
 */
const codeOf = (tool: AnyFunctionTool | QuestionTool) => (tool as { [TOOL_CODE]?: ToolCode })[TOOL_CODE];

function expiresAt(run: Run, timeoutMs: number | undefined): string | null {
  return timeoutMs === undefined ? null : new Date(now(run).getTime() + timeoutMs).toISOString();
}

/** Under the `reject` policy a sub-agent is told who may ask, rather than that the run is headless. */
const ONLY_TOP_AGENT =
  'only the top agent may ask the user, and you are a sub-agent. Decide with reasonable assumptions and state them, or report back what you need in your final answer.';

/** Why nobody can answer: a sub-agent under `reject` is told who may ask, instead of "headless". */
function unavailableMessage(run: Run, toolName?: string): string {
  if (run.questionsRejected) {
    return toolName
      ? `${toolName} asked for user input, but ${ONLY_TOP_AGENT}`
      : `No questions: ${ONLY_TOP_AGENT}`;
  }
  return toolName
    ? `${toolName} asked for user input, but no user can answer in this run (it is headless). Make reasonable assumptions, state them, and go on.`
    : 'No user can answer questions in this run (it is headless). Make reasonable assumptions, state them, and go on.';
}

async function askQuestion(
  run: Run,
  tool: QuestionTool,
  call: ToolCall,
  notAlone: boolean,
): Promise<CallOutcome> {
  if (notAlone) {
    return {
      result: toolErrorResult(
        'question_not_alone',
        `${tool.name} must be the only tool called in its step. The other calls ran; ask again on its own if you still need to.`,
      ),
    };
  }
  if (run.options.interactive === false) {
    return { result: toolErrorResult('user_input_unavailable', unavailableMessage(run)) };
  }
  const parsed = tool.parse(call.function.arguments);
  if (!parsed.ok) return { result: toolErrorResult('invalid_arguments', parsed.message) };
  // Who may answer is resolved by the code the tool carries (askUserQuestion's), when it says.
  const code = codeOf(tool);
  const policy =
    tool.assignees === undefined && tool.keep === undefined
      ? { fields: {} }
      : code
        ? await code.resolvePolicy(
            run,
            tool.name,
            call.id,
            { questions: parsed.questions },
            { ...(tool.assignees !== undefined ? { assignees: tool.assignees } : {}), ...tool.keep },
          )
        : notRun(tool);
  if ('result' in policy) return policy;
  const question: AskDraft = {
    kind: 'question',
    questions: parsed.questions,
    limits: tool.limits,
    expiresAt: expiresAt(run, tool.timeoutMs),
    onExpire: tool.onExpire,
  };
  return { draft: extend(policy.fields, question) };
}

/**
 * What running a function tool's code came to, as a call outcome: its result, or — when it asked
 * (`ctx.ask`) — the interaction to wait for (or the error result of an ask it cannot make).
 */
async function runTool(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  options: Parameters<typeof execute>[4] = {},
): Promise<CallOutcome> {
  const code = codeOf(tool);
  const outcome = code ? await code.execute(run, tool, call, input, options) : codelessCall(run, tool, call);
  if (!outcome) return outcome;
  // DESIGN §26: what the tool returned goes through the afterTool hooks before the model reads it.
  if ('result' in outcome) return afterTool(run, tool, call, input, outcome.result);
  const { request } = outcome.ask;
  if (run.options.interactive === false && request && !('approval' in request)) {
    const result = toolErrorResult('user_input_unavailable', unavailableMessage(run, tool.name));
    finishTool(run, call.id, tool.name, result);
    return { result };
  }
  // Only a tool's own code asks: this one carries it.
  const asked = await code!.toolAsked(run, tool, call, input, outcome.ask, (ms) => expiresAt(run, ms));
  if ('result' in asked) finishTool(run, call.id, tool.name, asked.result);
  return asked;
}

async function startCall(run: Run, tool: AnyFunctionTool, call: ToolCall): Promise<CallOutcome> {
  const parsed = parseToolInput(tool, call.function.arguments);
  if (!parsed.ok) return { result: parsed.result };
  return beforeTool(run, tool, call, parsed.input, (input, raw) => approveOrRun(run, tool, call, input, raw));
}

/**
 * After the beforeTool hooks let a call go: its tool's own approval (unless one remembered for the
 * run covers it), then the tool. `raw` is the input as JSON text (a hook may have rewritten it).
 */
async function approveOrRun(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  raw: string,
  options: Parameters<typeof execute>[4] = {},
): Promise<CallOutcome> {
  const remembered = () =>
    isRemembered(run.state.context.remembered, TOOL_APPROVAL, tool.name, () =>
      inputKey(tool.approval?.rememberBy as ((input: unknown) => string) | undefined, input),
    );
  if (tool.needsApproval && !remembered()) {
    const decision =
      typeof tool.needsApproval === 'function'
        ? await (codeOf(tool)?.decideApproval(run, tool, call, input) ?? notRun(tool))
        : tool.needsApproval;
    if (typeof decision === 'object') return decision;
    if (decision !== false) {
      const code = codeOf(tool);
      const policy = !tool.approval
        ? { fields: {} }
        : code
          ? await code.resolvePolicy(run, tool.name, call.id, input, tool.approval)
          : notRun(tool);
      if ('result' in policy) return policy;
      const approval: AskDraft = {
        kind: 'approval',
        input: raw,
        ...(typeof decision === 'string' ? { reason: decision } : {}),
        expiresAt: expiresAt(run, tool.approvalTimeoutMs),
        schemaHash: tool.schemaHash,
      };
      return { draft: extend(policy.fields, approval) };
    }
  }
  return runTool(run, tool, call, input, options);
}

async function runCall(
  run: Run,
  stepCall: StepCall,
  call: ToolCall,
  notAlone: boolean,
  drive: DriveToRest,
): Promise<CallOutcome> {
  const tool = run.agent.toolIndex.get(call.function.name);
  const drifted = driftResult(run, stepCall, call, tool);
  if (drifted) return drifted;
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
  if (tool.builtin === 'answer_subagent' || tool.subagent) {
    // The player comes with the tool (agentTool, answerSubagentTool), so the step never imports it.
    const player = tool.subagents as { step?: typeof playAgentToolCall } | undefined;
    if (player?.step) return player.step(run, tool, stepCall, call, drive);
    const result = `${tool.name} is an agent tool that was not made by agentTool or answerSubagentTool, so the loop cannot play it.`;
    return { result: toolErrorResult('tool_error', result) };
  }
  // Only sessions mark calls in doubt, and they hand in run.doubt (DESIGN §21).
  if (stepCall.inDoubt && run.doubt?.isInDoubt(stepCall, tool)) {
    const handled = await run.doubt.outcome(run, tool, stepCall, call);
    if (handled) return handled;
  }
  // A hook's review decided (DESIGN §26): its point goes on after the hook that asked.
  if (stepCall.interaction?.review) {
    return hooksFor(run).resumeReviewed(run, tool, stepCall, call, (input, raw, options) =>
      approveOrRun(run, tool, call, input, raw, options),
    );
  }
  if (stepCall.status === 'approved') {
    const raw = stepCall.approvedInput ?? call.function.arguments;
    const parsed = parseToolInput(tool, raw);
    if (!parsed.ok) return { result: parsed.result };
    return runTool(run, tool, call, parsed.input, stepCall.edited ? { editedInput: JSON.parse(raw) } : {});
  }
  if (stepCall.status === 'resuming' && stepCall.askResponse !== undefined && stepCall.interaction) {
    // A call approved with an edited input asked from its `execute`: `resume` gets that same input.
    const raw = stepCall.approvedInput ?? call.function.arguments;
    const parsed = parseToolInput(tool, raw);
    if (!parsed.ok) return { result: parsed.result };
    const code = codeOf(tool);
    if (!code) return codelessCall(run, tool, call);
    const response = code.askResponseFor(run, stepCall.interaction, stepCall.askResponse);
    const edited = stepCall.edited ? { editedInput: JSON.parse(raw) } : {};
    return runTool(run, tool, call, parsed.input, { response, ...edited });
  }
  return startCall(run, tool, call);
}

/**
 * Runs the step's runnable calls and returns their outcomes (in call order). `drive` plays a
 * sub-agent's loop: the loop passes itself in, so this layer never imports it back.
 */
export async function runStep(
  run: Run,
  drive: DriveToRest,
): Promise<{ outcomes: StepOutcome[]; failure?: HookFailure }> {
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
  const start = async (stepCall: StepCall): Promise<CallOutcome> => {
    const call = calls.get(stepCall.toolCallId);
    if (!call) return { result: toolErrorResult('tool_error', 'The call is missing from the transcript.') };
    const work = runCall(run, stepCall, call, notAlone && isQuestion(stepCall), drive);
    const raced = aborted ? await Promise.race([work, aborted]) : await work;
    return raced === ABORTED ? undefined : raced;
  };
  // Handoffs (DESIGN §27): the step's other calls run first, then its first transfer call; the rest are ignored.
  const transfers = transferCalls(run.agent, step);
  const works = runnable.map((stepCall) =>
    transfers.ignored.has(stepCall.toolCallId)
      ? Promise.resolve<CallOutcome>({ result: HANDOFF_IGNORED })
      : stepCall.toolCallId === transfers.first
        ? undefined
        : start(stepCall),
  );
  const handoffAt = runnable.findIndex((stepCall) => stepCall.toolCallId === transfers.first);
  if (handoffAt >= 0) works[handoffAt] = Promise.allSettled(works).then(() => start(runnable[handoffAt]!));
  const settled = await Promise.all(works).finally(() => {
    abort.dispose();
    tracingOf(run)?.endOpenToolSpans(run);
  });
  const outcomes: StepOutcome[] = [];
  let failure: HookFailure | undefined;
  let waiting = step.filter((call) => call.status === 'pending').length;
  let created = context.interactionCount;
  runnable.forEach((stepCall, index) => {
    const outcome = settled[index];
    if (!outcome) return;
    if ('failed' in outcome) {
      failure ??= outcome.failed;
      const { resume, askResponse } = outcome;
      if (resume && askResponse) outcomes.push({ toolCallId: stepCall.toolCallId, resume, askResponse });
      return;
    }
    if ('result' in outcome) {
      outcomes.push({ toolCallId: stepCall.toolCallId, ...outcome });
      return;
    }
    if ((run.agent.parallel === 'single' || run.single) && waiting > 0) {
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
    // `extend`, not a spread then new keys: that leaves V8's fast path (see machine/extend.ts).
    const interaction: StoredInteraction = extend(outcome.draft, {
      id: `${run.idPrefix}:${++created}`,
      toolCallId: stepCall.toolCallId,
      toolName: stepCall.toolName,
      agentPath: run.agentPath,
      createdAt: nowIso(run),
    });
    outcomes.push({ toolCallId: stepCall.toolCallId, interaction });
  });
  return failure ? { outcomes, failure } : { outcomes };
}
