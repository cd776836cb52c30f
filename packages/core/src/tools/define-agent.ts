/**
 * `defineAgent`: an agent is a plain, immutable description (model, instructions, tools, policies).
 * Everything derived from it that the loop needs on every call (tool specs, the name index) is
 * computed here once, not per turn.
 */
import { TurnkitError } from '../errors.js';
import { checkHooks } from '../hooks/index.js';
import { TOOL_CODE } from '../keys.js';
import type { ResponseFormat, ToolSpec } from '../types.js';
import { checkBudget, checkPricing } from './budget-config.js';
import { toJsonSchema } from './define-tool.js';
import type { Agent, AgentConfig, AnyFunctionTool, SubagentRuntime, Tool } from './definitions.js';
import { checkHistory } from './history-config.js';
import { checkModelSettings } from './model-settings.js';
import { checkTelemetry } from './telemetry-config.js';

/** A question tool's spec with `to`, for a sub-agent whose parent lets it choose who answers. */
/** The sub-agent player an agent tool carries; a tool with a `subagent` binding but no player was not made by `agentTool`. */
function playerOf(agentName: string, tool: AnyFunctionTool): SubagentRuntime {
  if (tool.subagents) return tool.subagents;
  throw new TurnkitError(
    'CONFIG_INVALID',
    `Agent ${agentName}: tool ${tool.name} has a sub-agent binding but was not made by agentTool: make agent tools with agentTool(child, options).`,
  );
}

function routedSpec(spec: ToolSpec): ToolSpec {
  const { parameters } = spec.function;
  const to = {
    type: 'string',
    enum: ['user', 'parent'],
    description:
      'Who answers: "user" (default), the person; "parent", the agent that gave you this task (for questions about the task itself, which it can answer without the person).',
  };
  const properties = { ...(parameters.properties as Record<string, unknown>), to };
  return { ...spec, function: { ...spec.function, parameters: { ...parameters, properties } } };
}

/** What the model is asked for when the agent has an `output` schema (computed once). */
function responseFormatOf<TOutput>(config: AgentConfig<TOutput>): ResponseFormat | undefined {
  const { output } = config;
  if (output === undefined) return undefined;
  if (typeof (output as { safeParse?: unknown })?.safeParse !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', `Agent ${config.name}: output must be a zod schema.`);
  }
  return {
    name: config.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
    schema: toJsonSchema(`Agent ${config.name}: its output schema`, output),
  };
}

/**
 * Defines an agent: a model, instructions and tools, plus the policies of the loop. With an
 * `output` schema, `TurnResult.output` is the parsed final answer, typed from the schema.
 *
 * @example
 * const agent = defineAgent({
 *   name: 'inventory',
 *   instructions: 'You are an LN2 inventory assistant.',
 *   model: scriptedModel(['Hello!']),
 *   tools: [queryInventory, askUserQuestion()],
 * });
 * const triage = defineAgent({
 *   name: 'triage',
 *   instructions: ({ context }) => `Triage for ${(context as { team: string }).team}.`,
 *   model,
 *   output: z.object({ priority: z.enum(['low', 'high']) }),
 *   modelSettings: { temperature: 0 },
 * });
 */
export function defineAgent<TOutput = string>(config: AgentConfig<TOutput>): Agent<TOutput> {
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
  const { secret, encrypt } = config.snapshot ?? {};
  if (secret !== undefined && (typeof secret !== 'string' || secret === '')) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${config.name}: snapshot.secret must be a non-empty string.`,
    );
  }
  if (encrypt && !secret) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${config.name}: snapshot.encrypt needs snapshot.secret (the encryption key is derived from it).`,
    );
  }
  if (config.toolErrorMessage !== undefined && typeof config.toolErrorMessage !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', `Agent ${config.name}: toolErrorMessage must be a function.`);
  }
  if (config.onInteraction !== undefined && typeof config.onInteraction !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${config.name}: onInteraction must be a function of (pending, run).`,
    );
  }
  if (typeof config.instructions !== 'string' && typeof config.instructions !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${config.name}: instructions must be a string or a function of { context, runId, agentPath }.`,
    );
  }
  if (config.modelSettings !== undefined) checkModelSettings(`Agent ${config.name}`, config.modelSettings);
  if (config.budget !== undefined) checkBudget(`Agent ${config.name}`, config.budget);
  if (config.telemetry !== undefined) checkTelemetry(`Agent ${config.name}`, config.telemetry);
  if (config.pricing !== undefined) checkPricing(`Agent ${config.name}`, config.pricing);
  if (config.history !== undefined) checkHistory(`Agent ${config.name}`, config.history);
  const { handoffs } = config;
  if (handoffs !== undefined && typeof handoffs !== 'function' && !Array.isArray(handoffs)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${config.name}: handoffs must be a list of agents and handoff(agent, options), or a function returning one.`,
    );
  }
  if (config.hooks !== undefined) checkHooks(`Agent ${config.name}`, config.hooks);
  const responseFormat = responseFormatOf(config);
  const tools = [...(config.tools ?? [])];
  // An agent tool under the `parent` (or `choose`) policy hands its child's questions to this
  // agent's model, which answers them with the built-in answer_subagent tool.
  const routesToParent = (tool: Tool) =>
    tool.kind === 'function' &&
    (tool.subagent?.questions === 'parent' || tool.subagent?.questions === 'choose');
  const router = tools.find(routesToParent);
  if (router?.kind === 'function' && !tools.some((tool) => tool.name === 'answer_subagent')) {
    tools.push(playerOf(config.name, router).answerTool());
  }
  const toolIndex = new Map<string, Tool>();
  for (const tool of tools) {
    if (tool.kind === 'function' && !tool.subagent && !tool.builtin && !(TOOL_CODE in tool)) {
      // The code that runs a tool travels with it (DESIGN §18): an object written by hand has none.
      throw new TurnkitError(
        'CONFIG_INVALID',
        `Agent ${config.name}: tool ${tool.name} was not made by defineTool, so it carries no code to run it. Make it with defineTool (a spread copy of a made tool keeps that code).`,
      );
    }
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
      routed: tools.map((tool) => (tool.kind === 'question' ? routedSpec(tool.spec) : tool.spec)),
    },
    ...(responseFormat ? { responseFormat } : {}),
  });
}
