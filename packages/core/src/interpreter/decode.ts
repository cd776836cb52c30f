/**
 * Reading a snapshot for an agent: signature → format/version → migration → shape → compatibility
 * (DESIGN §4). `SNAPSHOT_INCOMPATIBLE` now means another agent name, or a paused sub-agent whose
 * agent tool is gone; a function tool that changed is judged per call when it would run, with a
 * `tool_changed` result (DESIGN §21, drift.ts) instead of refusing the whole resume.
 */
import { SnapshotError } from '../errors.js';
import { handoffIn, type ResolvedHandoff } from '../handoffs/index.js';
import type { LoopContext } from '../machine/index.js';
import {
  checkShape,
  type DecodedSnapshot,
  openEnvelope,
  type TranscriptText,
  transcriptText,
} from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';

/**
 * Decodes a snapshot for `agent`: signature → format/version → migration → shape → compatibility.
 * Also returns the JSON text of its transcript, for the next snapshot to reuse (not after a
 * migration, which may have changed the messages), and — when the run was handed off (DESIGN §27)
 * — the handoff the active agent plays under, found through the root's graph.
 */
export function decodeFor(
  agent: AnyAgent,
  snapshot: string,
): { decoded: DecodedSnapshot; transcript?: TranscriptText; active?: ResolvedHandoff } {
  const opened = openEnvelope(snapshot, agent.snapshot);
  let envelope: unknown = opened.envelope;
  const written = (envelope as { agentVersion?: unknown }).agentVersion;
  const migrated = agent.migrate !== undefined && written !== agent.version;
  if (migrated) envelope = agent.migrate!(envelope as DecodedSnapshot);
  const decoded = checkShape(envelope);
  if (decoded.agent !== agent.name) {
    throw new SnapshotError(
      'SNAPSHOT_INCOMPATIBLE',
      `This snapshot belongs to agent ${JSON.stringify(decoded.agent)}, not ${JSON.stringify(agent.name)}: resume it with the agent that wrote it.`,
    );
  }
  const active = decoded.activeAgent ? activeHandoffIn(agent, decoded.activeAgent) : undefined;
  checkPendingTools(active?.agent ?? agent, decoded.state.context);
  const transcript = migrated ? undefined : transcriptText(opened.text, decoded.state.context.messages);
  return { decoded, ...(transcript ? { transcript } : {}), ...(active ? { active } : {}) };
}

/**
 * The handoff a snapshot's active agent plays under (DESIGN §27): one the root no longer reaches
 * is a `SNAPSHOT_INCOMPATIBLE` naming it.
 */
export function activeHandoffIn(root: AnyAgent, active: { name: string; from: string }): ResolvedHandoff {
  const found = handoffIn(root, active);
  if (found) return found;
  throw new SnapshotError(
    'SNAPSHOT_INCOMPATIBLE',
    `This run is played by agent ${JSON.stringify(active.name)} (handed over by ${JSON.stringify(active.from)}), which agent ${root.name} no longer reaches through its handoffs: restore that handoff, or re-point activeAgent in the root's migrate (give the root a new version).`,
  );
}

/**
 * Only paused sub-agents are checked here: their agent tool must still be one. A pending, approved
 * or in-flight call of a function tool is not refused when its tool changed (DESIGN §21): the tool
 * is compared when the call would run (see drift.ts), and a call whose tool is gone or whose input
 * the new schema refuses gets a `tool_changed` result instead, so a deploy never strands a run.
 * Questions are never compared (DESIGN §12): the snapshot holds the questions as asked, and answers
 * are checked against those.
 */
function checkPendingTools(agent: AnyAgent, context: LoopContext): void {
  for (const parked of context.parked ?? []) checkChild(agent, parked.toolName, parked.state.context);
  for (const call of context.step ?? []) {
    if (call.child && call.status !== 'done') checkChild(agent, call.toolName, call.child.context);
  }
}

function checkChild(agent: AnyAgent, toolName: string, context: LoopContext): void {
  const tool = agent.toolIndex.get(toolName);
  if (tool?.kind !== 'function' || !tool.subagent) {
    throw new SnapshotError(
      'SNAPSHOT_INCOMPATIBLE',
      `The run holds a paused sub-agent started by tool ${toolName}, which agent ${agent.name} no longer has as an agent tool: restore it to resume.`,
    );
  }
  checkPendingTools(tool.subagent.agent, context);
}
