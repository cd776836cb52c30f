/**
 * Playing sub-agents (DESIGN §6). The child runs inside its parent's step, with the parent's run
 * id, context and event stream. When the child pauses, its state stays inside the parent's
 * snapshot: under `bubble` the parent pauses too and the human's answer is routed down; under
 * `parent` the parent model gets the child's question and answers it with the built-in
 * `answer_subagent` tool; under `reject` the child may not ask. The child's loop is the `drive`
 * function the loop passes in.
 */
import { z } from 'zod';
import { TurnkitError } from '../errors.js';
import { type CallResult, type ChildState, type ParkedChild, pendingInteractions } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool, SubagentRuntime } from '../tools/index.js';
import type { ChatMessage, ToolCall } from '../types.js';
import { type ChildRuns, childRun, childState, type DriveToRest } from './child.js';
import { beginTurn } from './events.js';
import { applyResolutions, prepareResolutions, type ResponseInput } from './resolve.js';
import { toPending } from './result.js';
import { type Run, send, stateOf } from './run.js';
import { parseToolInput } from './tool-input.js';

/** The input of `answer_subagent`. */
export const answerInput = z.object({
  interactionId: z.string().min(1).describe('The interactionId from the sub-agent result'),
  answers: z
    .unknown()
    .optional()
    .describe('For a question: {"<header>": "<label>"} (or {"selected": [...], "other": "..."} per header)'),
  decision: z.enum(['approve', 'reject']).optional().describe('For an approval'),
  value: z.unknown().optional().describe('For an input form: a value matching its schema'),
  rationale: z.string().optional(),
});

/** What the parent model reads when a child pauses under the `parent` policy. */
function needsInputResult(run: Run): string {
  const first = toPending(pendingInteractions(run.state.context)[0]!);
  const body =
    first.kind === 'question'
      ? { questions: (first.payload as { questions: unknown }).questions }
      : first.kind === 'input'
        ? { input: first.payload }
        : { approval: first.payload };
  return JSON.stringify({ status: 'needs_input', interactionId: first.id, kind: first.kind, ...body });
}

/**
 * Whether a paused child's interactions go to its parent's model rather than to the human: always
 * under `parent`; under `choose` when every pending one is a question its model addressed to the
 * parent (`to: 'parent'` in the call's arguments). A step that asks both goes to the human.
 */
function forParent(run: Run, policy: string | undefined): boolean {
  if (policy === 'parent') return true;
  if (policy !== 'choose') return false;
  const last = run.state.context.messages.at(-1);
  const calls = new Map(
    (last?.role === 'assistant' ? (last.tool_calls ?? []) : []).map((call) => [call.id, call]),
  );
  return pendingInteractions(run.state.context).every((interaction) => {
    if (interaction.kind !== 'question' || interaction.ask) return false;
    try {
      return (
        (JSON.parse(calls.get(interaction.toolCallId)?.function.arguments ?? '{}') as { to?: unknown }).to ===
        'parent'
      );
    } catch {
      return false;
    }
  });
}

/** Maps a child that came to rest to its parent call's outcome (undefined: aborted, no result). */
function outcomeOf(run: Run, tool: AnyFunctionTool, call: ToolCall, parked = false): CallResult | undefined {
  const context = run.state.context;
  switch (stateOf(run)) {
    case 'completed':
      return { result: context.output ?? '' };
    case 'waitingInput': {
      // A child its parent's model is already answering (parked) keeps talking to that model.
      if (!parked && !forParent(run, tool.subagent?.questions)) return { child: childState(run) };
      const entry: ParkedChild = {
        key: run.idPrefix,
        toolName: tool.name,
        toolCallId: call.id,
        state: childState(run),
      };
      return { result: needsInputResult(run), park: { key: run.idPrefix, entry } };
    }
    case 'failed':
      return {
        result: toolErrorResult(
          'tool_error',
          `Sub-agent ${run.agent.name} failed: ${context.error?.message ?? 'unknown error'}`,
        ),
      };
    case 'maxSteps':
      return {
        result: toolErrorResult(
          'tool_error',
          `Sub-agent ${run.agent.name} stopped after ${context.maxSteps} model calls without finishing. Give it a smaller task.`,
        ),
      };
    default:
      return undefined;
  }
}

/**
 * The sub-agent player an agent tool carries (`subagents`, put there by `agentTool` and
 * `answerSubagentTool`): the loop plays children through it and never imports this file.
 */
export interface SubagentPlayer extends SubagentRuntime, ChildRuns {
  call: typeof runSubagentCall;
  answer: typeof runAnswerSubagent;
}

/** Starts (or, with `state`, continues) the child of an agent-tool call. */
export async function runSubagentCall(
  parent: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  state: ChildState | undefined,
  drive: DriveToRest,
): Promise<CallResult | undefined> {
  const run = childRun(parent, tool, call.id, state);
  if (!state) {
    const parsed = parseToolInput(tool, call.function.arguments);
    if (!parsed.ok) return { result: parsed.result };
    const { input } = parsed.input as { input: string };
    const messages: ChatMessage[] = [{ role: 'user', content: input }];
    beginTurn(run, 'input', messages);
    send(run, { type: 'START', messages, maxSteps: run.agent.maxSteps });
  }
  await drive(run);
  const outcome = outcomeOf(run, tool, call);
  const parks = tool.subagent!.questions === 'parent' || tool.subagent!.questions === 'choose';
  if (outcome && 'result' in outcome && parks && !('park' in outcome)) {
    return { ...outcome, park: { key: run.idPrefix, entry: null } };
  }
  return outcome;
}

/** Runs the built-in `answer_subagent`: answers a parked child and continues it. */
export async function runAnswerSubagent(
  parent: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  drive: DriveToRest,
): Promise<CallResult | undefined> {
  const parsed = parseToolInput(tool, call.function.arguments);
  if (!parsed.ok) return { result: parsed.result };
  const { interactionId, answers, decision, value, rationale } = parsed.input as z.infer<typeof answerInput>;
  const parked = (parent.state.context.parked ?? []).find((entry) =>
    pendingInteractions(entry.state.context).some((interaction) => interaction.id === interactionId),
  );
  if (!parked) {
    const open = (parent.state.context.parked ?? []).flatMap((entry) =>
      pendingInteractions(entry.state.context).map((item) => item.id),
    );
    return {
      result: toolErrorResult(
        'invalid_arguments',
        `No sub-agent is waiting on interaction ${JSON.stringify(interactionId)}. Waiting now: ${open.join(', ') || 'none'}.`,
      ),
    };
  }
  const agentToolDef = parent.agent.toolIndex.get(parked.toolName) as AnyFunctionTool;
  const run = childRun(parent, agentToolDef, parked.toolCallId, parked.state);
  const interaction = pendingInteractions(parked.state.context).find((item) => item.id === interactionId)!;
  let response: ResponseInput;
  if (interaction.kind === 'question') {
    response = { id: interactionId, type: 'answer', answers: answers as never };
  } else if (interaction.kind === 'input') {
    response = { id: interactionId, type: 'input', value };
  } else if (decision) {
    response = { id: interactionId, type: decision };
  } else {
    return {
      result: toolErrorResult(
        'invalid_arguments',
        'This interaction is an approval: give "decision": "approve" or "reject".',
      ),
    };
  }
  try {
    const resolutions = prepareResolutions(run, [response], {
      by: 'parent',
      ...(rationale !== undefined ? { rationale } : {}),
    });
    applyResolutions(run, resolutions);
  } catch (error) {
    if (!TurnkitError.isInstance(error)) throw error;
    return { result: toolErrorResult('invalid_arguments', error.message) };
  }
  await drive(run);
  const outcome = outcomeOf(run, agentToolDef, { ...call, id: parked.toolCallId }, true);
  if (!outcome) return undefined;
  if ('park' in outcome) return outcome;
  if ('result' in outcome) return { ...outcome, park: { key: parked.key, entry: null } };
  return outcome;
}
