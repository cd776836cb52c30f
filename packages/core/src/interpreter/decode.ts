/**
 * Reading a snapshot for an agent: signature → format/version → migration → shape → compatibility
 * (DESIGN §4). Only what a pending call needs is compared: its tool must still exist with the same
 * input schema, and a paused sub-agent's tool must still be an agent tool.
 */
import { SnapshotError } from '../errors.js';
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
 * migration, which may have changed the messages).
 */
export function decodeFor(
  agent: AnyAgent,
  snapshot: string,
): { decoded: DecodedSnapshot; transcript?: TranscriptText } {
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
  checkPendingTools(agent, decoded.state.context);
  const transcript = migrated ? undefined : transcriptText(opened.text, decoded.state.context.messages);
  return transcript ? { decoded, transcript } : { decoded };
}

/**
 * A pending or approved call of a function tool can only resume while its tool exists with the
 * same input schema. Questions are never compared (DESIGN §12): the snapshot holds the questions as
 * asked, and answers are checked against those, so changing the question tool's limits or
 * description between pause and answer strands nothing.
 */
function checkPendingTools(agent: AnyAgent, context: LoopContext): void {
  for (const parked of context.parked ?? []) checkChild(agent, parked.toolName, parked.state.context);
  for (const call of context.step ?? []) {
    if (call.child && call.status !== 'done') {
      checkChild(agent, call.toolName, call.child.context);
      continue;
    }
    const interaction = call.interaction;
    if (!interaction || call.status === 'done' || call.status === 'queued') continue;
    if (interaction.kind === 'question' && !interaction.ask) continue;
    const tool = agent.toolIndex.get(call.toolName);
    if (!tool) {
      throw new SnapshotError(
        'SNAPSHOT_INCOMPATIBLE',
        `The run waits on a call of tool ${call.toolName}, which agent ${agent.name} no longer has: restore the tool, or send a new user message with the previous agent to move on.`,
      );
    }
    if (interaction.ask && (tool.kind !== 'function' || typeof tool.resume !== 'function')) {
      throw new SnapshotError(
        'SNAPSHOT_INCOMPATIBLE',
        `The run waits on an answer for tool ${call.toolName}, which no longer has a resume function to continue with it: restore resume to resume the run.`,
      );
    }
    if (tool.schemaHash !== interaction.schemaHash) {
      throw new SnapshotError(
        'SNAPSHOT_INCOMPATIBLE',
        `The input schema of tool ${call.toolName} changed since the run paused on it: resume with the previous tool definition (or migrate the snapshot).`,
      );
    }
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
