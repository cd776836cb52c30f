/**
 * Escalation in a replay (DESIGN §30 × §28): a sweeper replaced the assignees of a waiting ask
 * between turns — a write, not a turn, so a recording does not hold it (nor, from a snapshot, when
 * the ask was made, which the steps count from). A recorded response is the evidence: when its
 * principal is not an assignee of the ask but one of today's escalation steps names them, the
 * steps up to that one are applied first, as the sweeper did. A chain that no longer names them
 * leaves the ask as it is, and replay reports the refused response (`pause`).
 */
import { encodeRun, loadRun } from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import type { Agent } from '../tools/index.js';

/** `snapshot` with the asks `ids` escalated to `principal` where today's chain leads to them (itself otherwise). */
export function escalatedTo(
  agent: Agent<unknown>,
  snapshot: string,
  ids: readonly string[],
  principal: string | undefined,
): string {
  if (principal === undefined) return snapshot;
  const run = loadRun(agent, snapshot, {});
  let escalated = false;
  for (const interaction of pendingInteractions(run.state.context)) {
    const { keep, assignees } = interaction;
    if (!ids.includes(interaction.id) || !keep?.escalate || !assignees || assignees.includes(principal))
      continue;
    const from = keep.escalated ?? 0;
    const step = keep.escalate.findIndex(
      (item, index) => index >= from && item.assignees.includes(principal),
    );
    if (step === -1) continue;
    interaction.assignees = [...keep.escalate[step]!.assignees];
    keep.escalated = step + 1;
    escalated = true;
  }
  return escalated ? encodeRun(run) : snapshot;
}
