/**
 * The root's handoff graph (DESIGN §27): every agent a run started with the root can be handed to,
 * by name. A snapshot records the active agent by name; a resume is given the root only, and finds
 * the agent that plays through this graph.
 */
import { TurnkitError } from '../errors.js';
import type { AnyAgent } from '../tools/index.js';
import { handoffsOf, type ResolvedHandoff } from './handoff.js';
import { playingAgent } from './transfer.js';

/**
 * The root as it starts a run: its whole handoff graph read and checked first (a function of
 * `handoffs` is called then), so a graph a resume could not follow is refused before anything runs.
 */
export function playingRoot(root: AnyAgent): AnyAgent {
  if (root.handoffs !== undefined) agentsReachedBy(root);
  return playingAgent(root);
}

const graphs = new WeakMap<AnyAgent, ReadonlyMap<string, AnyAgent>>();

/**
 * The agents `root` reaches through handoffs (itself included), by name; walked once and kept.
 * `CONFIG_INVALID` when two different agents of the graph share a name (a snapshot could not say
 * which one plays).
 */
export function agentsReachedBy(root: AnyAgent): ReadonlyMap<string, AnyAgent> {
  const known = graphs.get(root);
  if (known) return known;
  const byName = new Map<string, AnyAgent>([[root.name, root]]);
  const queue: AnyAgent[] = [root];
  for (let agent = queue.shift(); agent; agent = queue.shift()) {
    for (const { agent: next } of handoffsOf(agent)) {
      const seen = byName.get(next.name);
      if (seen === next) continue;
      if (seen) {
        throw new TurnkitError(
          'CONFIG_INVALID',
          `Two different agents named ${next.name} are in the handoff graph of ${root.name}: agent names must be unique there (a snapshot names the agent that plays).`,
        );
      }
      byName.set(next.name, next);
      queue.push(next);
    }
  }
  graphs.set(root, byName);
  return byName;
}

/** The active agent a snapshot records: its name, and the agent whose handoff made it play. */
export interface ActiveAgentRecord {
  name: string;
  from: string;
}

/**
 * The handoff a snapshot's active agent plays under, found through `root`'s graph: `from` must
 * still be reached and still list a handoff to `name`. Undefined when it does not (the caller
 * refuses the snapshot, naming the agent).
 */
export function handoffIn(root: AnyAgent, active: ActiveAgentRecord): ResolvedHandoff | undefined {
  const agents = agentsReachedBy(root);
  const from = agents.get(active.from);
  const to = agents.get(active.name);
  if (!from || !to) return undefined;
  return handoffsOf(from).find((entry) => entry.agent === to);
}
