/**
 * The `transfer_to_<name>` tools (DESIGN §27) and the agent as it plays: its own tools plus one
 * transfer tool per handoff. A transfer tool is an ordinary function tool — its approval, its
 * in-doubt handling, its events are every tool's — whose result `{ ok: true, transferred_to }`
 * marks the switch; the loop makes the switch when the step that called it ends (see step.ts).
 */
import { z } from 'zod';
import { type AnyAgent, type AnyFunctionTool, defineTool, type HandoffInput } from '../tools/index.js';
import { handoffsOf, type ResolvedHandoff } from './handoff.js';

/** Each playing agent's transfer tools, by tool name. */
const transfers = new WeakMap<AnyAgent, ReadonlyMap<string, ResolvedHandoff>>();
/** The playing form of each agent that has handoffs. */
const playing = new WeakMap<AnyAgent, AnyAgent>();

function transferTool(handoff: ResolvedHandoff): AnyFunctionTool {
  const { approval } = handoff.options;
  return defineTool({
    name: handoff.toolName,
    description: handoff.description,
    input: z.object({
      reason: z.string().optional().describe('Why the conversation is handed over, for the agent taking it.'),
    }),
    ...(approval ? { needsApproval: true } : {}),
    ...(typeof approval === 'object' ? { approval } : {}),
    execute: (_input: HandoffInput) => ({ ok: true, transferred_to: handoff.agent.name }),
  }) as AnyFunctionTool;
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
