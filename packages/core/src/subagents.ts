/**
 * Sub-agents (DESIGN §6): `agentTool` turns an agent into a tool of another agent. The child runs
 * inside its parent's step, with the parent's run id, context and event stream. When the child
 * pauses, its state stays inside the parent's snapshot: under `bubble` the parent pauses too and
 * the human's answer is routed down; under `parent` the parent model gets the child's question and
 * answers it with the built-in `answer_subagent` tool; under `reject` the child may not ask.
 */
import { z } from 'zod';
import type { Agent } from './agent.js';
import { TurnkitError } from './errors.js';
import { beginTurn, driveToRest } from './loop.js';
import {
  agentMachine,
  type CallResult,
  type ChildState,
  type LoopContext,
  type ParkedChild,
} from './machine.js';
import { applyResolutions, prepareResolutions, type ResponseInput } from './respond.js';
import { toolErrorResult } from './results.js';
import { pendingOf, type Run, send, stateOf, toPending } from './run.js';
import { parseToolInput } from './step.js';
import { type AnyFunctionTool, defineTool, type FunctionTool, type SubagentQuestionPolicy } from './tools.js';
import type { ToolCall } from './types.js';

/** Options of {@link agentTool}. */
export interface AgentToolOptions {
  /** Tool name the parent model sees (default: the child agent's name). */
  name?: string;
  description?: string;
  /**
   * `bubble` (default): the child's questions and approvals pause the parent and reach the human.
   * `parent`: they go to the parent model, which answers with `answer_subagent`.
   * `reject`: the child may not ask questions; its approvals still bubble to the human.
   */
  questions?: SubagentQuestionPolicy;
}

/** The tool made by {@link agentTool}: input `{ input }`, result the child's final output. */
export type AgentTool = FunctionTool<{ input: string }, string> & Pick<AnyFunctionTool, 'subagent'>;

const subagentInput = z.object({
  input: z
    .string()
    .min(1)
    .describe('The task for the sub-agent, complete and self-contained: it sees nothing else.'),
});

function notRunDirectly(): never {
  throw new TurnkitError(
    'CONFIG_INVALID',
    'Agent tools run through the TurnKit loop, not by calling execute.',
  );
}

/**
 * Makes a tool that delegates a task to `child`.
 *
 * @example
 * const research = agentTool(researcher, { description: 'Look things up', questions: 'bubble' });
 * const lead = defineAgent({ name: 'lead', instructions: '…', model, tools: [research] });
 */
export function agentTool(child: Agent, options: AgentToolOptions = {}): AgentTool {
  const tool = defineTool({
    name: options.name ?? child.name,
    description:
      options.description ?? `Delegate a task to the ${child.name} agent. Returns its final answer as text.`,
    input: subagentInput,
    execute: notRunDirectly,
  });
  return { ...tool, subagent: { agent: child, questions: options.questions ?? 'bubble' } };
}

const answerInput = z.object({
  interactionId: z.string().min(1).describe('The interactionId from the sub-agent result'),
  answers: z
    .unknown()
    .optional()
    .describe('For a question: {"<header>": "<label>"} (or {"selected": [...], "other": "..."} per header)'),
  decision: z.enum(['approve', 'reject']).optional().describe('For an approval'),
  rationale: z.string().optional(),
});

/** The built-in tool an agent gets when one of its agent tools uses the `parent` policy. */
export function answerSubagentTool(): AnyFunctionTool {
  const tool = defineTool({
    name: 'answer_subagent',
    description:
      'Answer a question or decide an approval that one of your sub-agents asked you (a tool result with "status":"needs_input"). The result is the sub-agent\'s final output, or its next question in the same shape.',
    input: answerInput,
    execute: notRunDirectly,
  });
  return { ...tool, builtin: 'answer_subagent' };
}

/** A run for a child agent, inside `parent`, at `state` (or fresh). */
function childRun(parent: Run, tool: AnyFunctionTool, toolCallId: string, state?: ChildState): Run {
  const binding = tool.subagent!;
  const agent = binding.agent;
  const interactive =
    binding.questions === 'reject'
      ? false
      : binding.questions === 'parent'
        ? true
        : parent.options.interactive;
  return {
    agent,
    runId: parent.runId,
    agentPath: [...parent.agentPath, agent.name],
    idPrefix: `${parent.idPrefix}/${agent.name}@${toolCallId}`,
    parent,
    turn: parent.turn,
    seq: 0,
    state: state
      ? agentMachine.resolveState(state)
      : agentMachine.resolveState({ value: 'idle', context: agentMachine.config.context as LoopContext }),
    context: parent.context,
    options: { ...parent.options, interactive },
    events: [],
    usage: parent.usage,
  };
}

/** The machine state of a child run, to keep in its parent. */
export const childState = (run: Run): ChildState => ({ value: stateOf(run), context: run.state.context });

/** What the parent model reads when a child pauses under the `parent` policy. */
function needsInputResult(run: Run): string {
  const first = toPending(pendingOf(run.state.context)[0]!);
  const body =
    first.kind === 'question'
      ? { questions: (first.payload as { questions: unknown }).questions }
      : { approval: first.payload };
  return JSON.stringify({ status: 'needs_input', interactionId: first.id, kind: first.kind, ...body });
}

/** Maps a child that came to rest to its parent call's outcome (undefined: aborted, no result). */
function outcomeOf(run: Run, tool: AnyFunctionTool, call: ToolCall): CallResult | undefined {
  const context = run.state.context;
  switch (stateOf(run)) {
    case 'completed':
      return { result: context.output ?? '' };
    case 'waitingInput': {
      if (tool.subagent!.questions !== 'parent') return { child: childState(run) };
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

/** Starts (or, with `state`, continues) the child of an agent-tool call. */
export async function runSubagentCall(
  parent: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  state?: ChildState,
): Promise<CallResult | undefined> {
  const run = childRun(parent, tool, call.id, state);
  if (!state) {
    const parsed = parseToolInput(tool, call.function.arguments);
    if (!parsed.ok) return { result: parsed.result };
    const { input } = parsed.input as { input: string };
    beginTurn(run, 'input');
    send(run, { type: 'START', messages: [{ role: 'user', content: input }], maxSteps: run.agent.maxSteps });
  }
  await driveToRest(run);
  const outcome = outcomeOf(run, tool, call);
  if (outcome && 'result' in outcome && tool.subagent!.questions === 'parent' && !('park' in outcome)) {
    return { ...outcome, park: { key: run.idPrefix, entry: null } };
  }
  return outcome;
}

/** Builds a child run for validation and application of responses routed to it. */
export function childRunFor(parent: Run, toolName: string, toolCallId: string, state: ChildState): Run {
  return childRun(parent, parent.agent.toolIndex.get(toolName) as AnyFunctionTool, toolCallId, state);
}

/** Runs the built-in `answer_subagent`: answers a parked child and continues it. */
export async function runAnswerSubagent(
  parent: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
): Promise<CallResult | undefined> {
  const parsed = parseToolInput(tool, call.function.arguments);
  if (!parsed.ok) return { result: parsed.result };
  const { interactionId, answers, decision, rationale } = parsed.input as z.infer<typeof answerInput>;
  const parked = (parent.state.context.parked ?? []).find((entry) =>
    pendingOf(entry.state.context).some((interaction) => interaction.id === interactionId),
  );
  if (!parked) {
    const open = (parent.state.context.parked ?? []).flatMap((entry) =>
      pendingOf(entry.state.context).map((item) => item.id),
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
  const interaction = pendingOf(parked.state.context).find((item) => item.id === interactionId)!;
  let response: ResponseInput;
  if (interaction.kind === 'question') {
    response = { id: interactionId, type: 'answer', answers: answers as never };
  } else if (decision) {
    response = { id: interactionId, type: decision, ...(rationale !== undefined ? { rationale } : {}) };
  } else {
    return {
      result: toolErrorResult(
        'invalid_arguments',
        'This interaction is an approval: give "decision": "approve" or "reject".',
      ),
    };
  }
  try {
    const resolutions = prepareResolutions(run, [response]);
    applyResolutions(run, resolutions);
  } catch (error) {
    if (!TurnkitError.isInstance(error)) throw error;
    return { result: toolErrorResult('invalid_arguments', error.message) };
  }
  await driveToRest(run);
  const outcome = outcomeOf(run, agentToolDef, { ...call, id: parked.toolCallId });
  if (!outcome) return undefined;
  if ('park' in outcome) return outcome;
  if ('result' in outcome) return { ...outcome, park: { key: parked.key, entry: null } };
  return outcome;
}
