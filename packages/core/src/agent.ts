/**
 * `defineAgent`: an agent is a plain, immutable description (model, instructions, tools, policies).
 * Everything derived from it that the loop needs on every call (tool specs, the name index) is
 * computed here once, not per turn.
 */
import type SuperJSON from 'superjson';
import { TurnkitError } from './errors.js';
import type { DecodedSnapshot } from './snapshot.js';
import { answerSubagentTool } from './subagents.js';
import type { Tool } from './tools.js';
import type { ModelAdapter, ToolSpec } from './types.js';

/** How several human interactions requested in one step are handled. */
export type ParallelQuestionPolicy = 'batch' | 'reject' | 'single';

/** Configuration of {@link defineAgent}. */
export interface AgentConfig {
  /** Identifies the agent in snapshots, events and `agentPath`; a resume with another name is refused. */
  name: string;
  /** The system message, sent first on every model call (never stored in the transcript). */
  instructions: string;
  model: ModelAdapter;
  tools?: Tool[];
  /** Model calls per turn before the turn ends `max_steps` (default 20). */
  maxSteps?: number;
  /** With a `secret`, snapshots are HMAC-SHA256 signed and unsigned or edited ones are refused. */
  snapshot?: { secret?: string };
  /** Recorded in every snapshot; a snapshot with another version goes through `migrate`. */
  version?: string;
  /** Upgrades a snapshot written by another `version` of the agent; returns the snapshot to use. */
  migrate?: (decoded: DecodedSnapshot) => DecodedSnapshot;
  questions?: {
    /**
     * `batch` (default): every interaction of a step is pending at once. `reject`: a question in the
     * same step as another tool gets `question_not_alone`. `single`: one pending at a time; later
     * ones in the step get `interaction_pending`.
     */
    parallel?: ParallelQuestionPolicy;
  };
  /** The superjson instance for the application `context` (register your classes on it). Default: the global one. */
  serializer?: SuperJSON;
}

/** An agent made by {@link defineAgent}. */
export interface Agent extends Readonly<Omit<AgentConfig, 'tools' | 'maxSteps' | 'version'>> {
  readonly tools: readonly Tool[];
  readonly maxSteps: number;
  readonly version: string;
  readonly parallel: ParallelQuestionPolicy;
  /** Tools by name. */
  readonly toolIndex: ReadonlyMap<string, Tool>;
  /** Specs of every tool, and of every tool but the question tools (for `interactive: false`). */
  readonly toolSpecs: { all: ToolSpec[]; headless: ToolSpec[] };
}

/**
 * Defines an agent: a model, instructions and tools, plus the policies of the loop.
 *
 * @example
 * const agent = defineAgent({
 *   name: 'inventory',
 *   instructions: 'You are an LN2 inventory assistant.',
 *   model: scriptedModel(['Hello!']),
 *   tools: [queryInventory, askUserQuestion()],
 * });
 */
export function defineAgent(config: AgentConfig): Agent {
  if (typeof config.name !== 'string' || config.name.trim() === '' || /[/\s]/.test(config.name)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent name ${JSON.stringify(config.name)} is not allowed: use a non-empty name without spaces or '/'.`,
    );
  }
  const maxSteps = config.maxSteps ?? 20;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new TurnkitError('CONFIG_INVALID', `Agent ${config.name}: maxSteps must be a positive integer.`);
  }
  const tools = [...(config.tools ?? [])];
  // An agent tool under the `parent` policy hands its child's questions to this agent's model,
  // which answers them with the built-in answer_subagent tool.
  if (tools.some((tool) => tool.kind === 'function' && tool.subagent?.questions === 'parent')) {
    if (!tools.some((tool) => tool.name === 'answer_subagent')) tools.push(answerSubagentTool());
  }
  const toolIndex = new Map<string, Tool>();
  for (const tool of tools) {
    if (toolIndex.has(tool.name)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `Agent ${config.name} has two tools named ${tool.name}: tool names must be unique.`,
      );
    }
    toolIndex.set(tool.name, tool);
  }
  return Object.freeze({
    ...config,
    tools,
    maxSteps,
    version: config.version ?? '0',
    parallel: config.questions?.parallel ?? 'batch',
    toolIndex,
    toolSpecs: {
      all: tools.map((tool) => tool.spec),
      headless: tools.filter((tool) => tool.kind !== 'question').map((tool) => tool.spec),
    },
  });
}
