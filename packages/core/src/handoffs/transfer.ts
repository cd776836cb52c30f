/**
 * The `transfer_to_<name>` tools (DESIGN §27) and the agent as it plays: its own tools plus one
 * transfer tool per handoff. A transfer tool is a function tool — its approval, its events are
 * every tool's — whose result `{ ok: true, transferred_to }` marks the switch; the loop makes the
 * switch when the step that called it ends (see step.ts). One made by `handoff()` carries the code
 * that runs a function tool (as `defineTool`'s do); for a plain agent listed, the loop runs the
 * call itself (interpreter/handoff-switch.ts), so a program without `handoff()` bundles none of it.
 */
import { z } from 'zod';
import { TOOL_CODE } from '../keys.js';
import { type AnyAgent, type AnyFunctionTool, hashSchema, toJsonSchema } from '../tools/index.js';
import type { ToolSpec } from '../types.js';
import { handoffsOf, type ResolvedHandoff } from './handoff.js';

/** Each playing agent's transfer tools, by tool name. */
const transfers = new WeakMap<AnyAgent, ReadonlyMap<string, ResolvedHandoff>>();
/** The playing form of each agent that has handoffs. */
const playing = new WeakMap<AnyAgent, AnyAgent>();

/** A transfer tool's input (`HandoffInput`), and its JSON Schema: the same for every handoff, made once. */
let shape:
  | { input: z.ZodType; parameters: ToolSpec['function']['parameters']; schemaHash: string }
  | undefined;

function transferShape(): NonNullable<typeof shape> {
  if (shape) return shape;
  const input = z.object({
    reason: z.string().optional().describe('Why the conversation is handed over, for the agent taking it.'),
  });
  const parameters = toJsonSchema('A transfer tool: its input schema', input);
  shape = { input, parameters, schemaHash: hashSchema(parameters) };
  return shape;
}

/**
 * The transfer tool of a handoff: the function tool `defineTool` would make of it, built here
 * without `defineTool`'s checks (DESIGN §18's size budget: every program bundles handoffs, since
 * `handoffs` may list plain agents). Its name was checked by `handoff()` or made valid by
 * `transferToolName`; `handoff()` checked its approval policy, and gave it its code.
 */
function transferTool(handoff: ResolvedHandoff): AnyFunctionTool {
  const { approval } = handoff.options;
  const { toolName: name, description } = handoff;
  const { input, parameters, schemaHash } = transferShape();
  return {
    name,
    description,
    input,
    ...(approval ? { needsApproval: true } : {}),
    ...(typeof approval === 'object' ? { approval: approval as AnyFunctionTool['approval'] } : {}),
    execute: () => ({ ok: true, transferred_to: handoff.agent.name }),
    kind: 'function',
    spec: { type: 'function', function: { name, description, parameters } },
    schemaHash,
    ...(handoff.code ? { [TOOL_CODE]: handoff.code } : {}),
  };
}

/**
 * `agent` as it plays a run: with one transfer tool per handoff in its tools, tool index and
 * specs (the same object for the same agent, made on first use). An agent without handoffs plays
 * as it is.
 */
export function playingAgent(agent: AnyAgent): AnyAgent {
  if (agent.handoffs === undefined) return agent;
  const known = playing.get(agent);
  if (known) return known;
  const handoffs = handoffsOf(agent);
  const tools = handoffs.map(transferTool);
  const specs = tools.map((tool) => tool.spec);
  const { all, headless, routed } = agent.toolSpecs;
  const played: AnyAgent = Object.freeze({
    ...agent,
    tools: [...agent.tools, ...tools],
    toolIndex: new Map([...agent.toolIndex, ...tools.map((tool) => [tool.name, tool] as const)]),
    toolSpecs: { all: [...all, ...specs], headless: [...headless, ...specs], routed: [...routed, ...specs] },
  });
  transfers.set(played, new Map(handoffs.map((handoff) => [handoff.toolName, handoff])));
  playing.set(agent, played);
  playing.set(played, played);
  return played;
}

/** The handoff a tool of the playing agent transfers to, or undefined for any other tool. */
export function transferOf(agent: AnyAgent, toolName: string): ResolvedHandoff | undefined {
  return transfers.get(agent)?.get(toolName);
}
