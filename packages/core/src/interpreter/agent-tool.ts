/**
 * The definition side of sub-agents (DESIGN §6): `agentTool` turns an agent into a tool of another
 * agent, and `answerSubagentTool` is the built-in tool a parent model answers its children with.
 * Neither runs anything itself: each carries the interpreter's sub-agent player (`subagents`),
 * which the loop calls when it meets `subagent` or `builtin`. The player lives here, not in the
 * loop's imports, so a program without agent tools bundles none of it (DESIGN §18).
 */
import { z } from 'zod';
import { TurnkitError } from '../errors.js';
import {
  type AnyAgent,
  type AnyFunctionTool,
  type FunctionTool,
  type SubagentQuestionPolicy,
  toolFrom,
} from '../tools/index.js';
import { childRun } from './child.js';
import { playAgentToolCall } from './subagent-call.js';
import { answerInput, runAnswerSubagent, runSubagentCall, type SubagentPlayer } from './subagents.js';

/** Options of {@link agentTool}. */
export interface AgentToolOptions {
  /** Tool name the parent model sees (default: the child agent's name). */
  name?: string | undefined;
  description?: string | undefined;
  /**
   * `bubble` (default): the child's questions and approvals pause the parent and reach the human.
   * `parent`: they go to the parent model, which answers with `answer_subagent`.
   * `reject`: the child may not ask questions; its approvals still bubble to the human.
   * `choose`: the child's question tool takes `to: 'user' | 'parent'` (default user) and each
   * question goes where the child says (a step asking both goes to the user). Once a child is
   * talking to its parent's model, its later questions in that task go to that model too, which
   * may ask the user itself.
   */
  questions?: SubagentQuestionPolicy;
}

/** The tool made by {@link agentTool}: input `{ input }`, result the child's final output (its JSON text with an `output` schema). */
export type AgentTool = FunctionTool<{ input: string }, string> &
  Pick<AnyFunctionTool, 'subagent' | 'subagents'>;

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
export function agentTool(child: AnyAgent, options: AgentToolOptions = {}): AgentTool {
  const tool = toolFrom({
    name: options.name ?? child.name,
    description:
      options.description ??
      `Delegate a task to the ${child.name} agent. Returns its final answer as ${child.output ? 'JSON' : 'text'}.`,
    input: subagentInput,
    execute: notRunDirectly,
  });
  return { ...tool, subagent: { agent: child, questions: options.questions ?? 'bubble' }, subagents: PLAYER };
}

/** The built-in tool an agent gets when one of its agent tools uses the `parent` policy. */
export function answerSubagentTool(): AnyFunctionTool {
  const tool = toolFrom({
    name: 'answer_subagent',
    description:
      'Answer a question, decide an approval or fill in an input form that one of your sub-agents asked you (a tool result with "status":"needs_input"). The result is the sub-agent\'s final output, or its next question in the same shape.',
    input: answerInput,
    execute: notRunDirectly,
  });
  return { ...tool, builtin: 'answer_subagent', subagents: PLAYER };
}

/**
 * What both tools carry: how the step runs their calls (`step`, hooks included), how the loop plays
 * a child, and how a parent gets its `answer_subagent`.
 */
const PLAYER: SubagentPlayer & { step: typeof playAgentToolCall } = {
  answerTool: answerSubagentTool,
  step: playAgentToolCall,
  call: runSubagentCall,
  answer: runAnswerSubagent,
  childRun,
};
