/**
 * Reminders and escalation (DESIGN §30), the sweeper's half: for a run at rest, whatever reminder
 * or escalation step is due (schedule.ts) is applied to its pending asks — an escalation replaces
 * the assignees, a reminder is marked sent for the current expiry — in one compare-and-set write,
 * and only the process whose write won calls `onInteraction(pending, run, { reason })`. So two
 * sweepers at once, on any store, fire each once: the store judges the write as it judges every
 * other (version, and no live lease). The mark is written before the call: a process that dies
 * between the two loses that reminder (the escalation itself is stored either way); a call that
 * throws goes to `onError`, and is not made again.
 */
import { ConflictError, LinkError } from '../errors.js';
import { now, stateOf, toPending } from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import type { InteractionNotice, OnInteraction } from '../tools/index.js';
import type { PendingInteraction, TurnOptions } from '../types.js';
import type { SessionResult } from './api.js';
import { earliestExpiry, writeRun } from './rows.js';
import { dueAt } from './schedule.js';
import type { SnapshotStore } from './store.js';
import { isClaim, type SessionTurns, sessionResult } from './turns.js';

/** One call of `onInteraction` owed by the write that applied it. */
interface Notice {
  pending: PendingInteraction;
  reason: InteractionNotice['reason'];
}

/**
 * Applies the reminders and escalation steps due on `runId` (by the store's clock, or the caller's
 * `now`), then makes their `onInteraction` calls. Returns the run as written, or null when nothing
 * was due or another writer moved the run first (then the next sweep looks again).
 */
export async function keepAsks(
  turns: SessionTurns,
  store: SnapshotStore,
  onInteraction: OnInteraction | undefined,
  runId: string,
  options: TurnOptions,
): Promise<SessionResult<unknown> | null> {
  const loaded = await turns.load(runId, options);
  const { run } = loaded;
  if (isClaim(run) || turns.leased(loaded) || stateOf(run) !== 'waitingInput') return null;
  const at = now(run).getTime();
  const notices: Notice[] = [];
  for (const interaction of pendingInteractions(run.state.context)) {
    const due = dueAt(interaction, at);
    const keep = interaction.keep;
    if (!keep) continue;
    for (const index of due.steps) {
      interaction.assignees = [...keep.escalate![index]!.assignees];
      keep.escalated = index + 1;
      notices.push({ pending: toPending(interaction), reason: 'escalated' });
    }
    if (due.reminder) {
      keep.remindedFor = interaction.expiresAt!;
      notices.push({ pending: toPending(interaction), reason: 'reminder' });
    }
  }
  if (notices.length === 0) return null;
  let result: SessionResult<unknown>;
  try {
    const written = await writeRun(store, run, loaded.logs, {
      expectedVersion: loaded.version,
      lease: null,
      expiresAt: earliestExpiry(run),
    });
    result = sessionResult(run, written.snapshot, written.version, undefined, written.logs);
  } catch (error) {
    // Another sweeper (or an answer) moved the run first: whoever won fires what it applied.
    if (error instanceof ConflictError) return null;
    throw error;
  }
  for (const { pending, reason } of notices) {
    try {
      await onInteraction?.(pending, result, { reason });
    } catch (error) {
      try {
        options.onError?.(error, { runId, agentPath: pending.agentPath });
      } catch {
        // An onError that throws never breaks the sweep.
      }
    }
  }
  return result;
}

/**
 * The `LINK_INVALID` error of an answer link made for a principal the ask no longer names because
 * it was escalated away from them (DESIGN §30), or null when that is not why they were refused.
 */
export function escalatedLinkError(
  run: { state: { context: Parameters<typeof pendingInteractions>[0] } },
  interactionId: string,
  principal: string,
): LinkError | null {
  const interaction = pendingInteractions(run.state.context).find((pending) => pending.id === interactionId);
  if (!interaction?.keep?.escalated || interaction.assignees?.includes(principal) !== false) return null;
  return new LinkError(
    `This link was made for ${JSON.stringify(principal)}, and interaction ${interactionId} has since been escalated to ${interaction.assignees.map((name) => JSON.stringify(name)).join(', ')}: it no longer works. Nothing changed.`,
    false,
  );
}
