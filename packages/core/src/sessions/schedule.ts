/**
 * The clock of a kept ask (DESIGN §30), as plain functions of a stored interaction: when its
 * reminder and escalation steps fall due, what is due at a given time, and when the sweeper should
 * next look at a run. The sweeper (reminders.ts) applies what is due; rows.ts stores the next wake
 * as the row's `expiresAt`, so `listExpired` lists runs with a reminder or an escalation due as
 * well as runs with an expired ask, on every store, with no new store method.
 */
import type { StoredInteraction } from '../machine/index.js';

/** When the interaction's reminder is due (epoch ms), or null: none asked for, no expiry, or sent for this expiry. */
function reminderAt(interaction: StoredInteraction): number | null {
  const keep = interaction.keep;
  if (keep?.remindBeforeMs === undefined || interaction.expiresAt === null) return null;
  if (keep.remindedFor === interaction.expiresAt) return null;
  return Date.parse(interaction.expiresAt) - keep.remindBeforeMs;
}

/** When its next escalation step is due (epoch ms), or null when none is left. */
function escalationAt(interaction: StoredInteraction): number | null {
  const step = interaction.keep?.escalate?.[interaction.keep.escalated ?? 0];
  return step ? Date.parse(step.at) : null;
}

/**
 * The earliest time (ISO) at which one of `interactions` expires or has a reminder or escalation
 * step due; null when none will. A step due after the expiry is never due (expiry resolves the ask).
 */
export function nextWake(interactions: StoredInteraction[]): string | null {
  let earliest = Number.POSITIVE_INFINITY;
  for (const interaction of interactions) {
    const expires =
      interaction.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(interaction.expiresAt);
    for (const at of [expires, reminderAt(interaction), escalationAt(interaction)]) {
      if (at !== null && at <= expires && at < earliest) earliest = at;
    }
  }
  return Number.isFinite(earliest) ? new Date(earliest).toISOString() : null;
}

/** What the sweeper owes an interaction at `at` (epoch ms): escalation steps first, then the reminder. */
export interface Due {
  /** Indexes of the escalation steps due now, in order. */
  steps: number[];
  reminder: boolean;
}

/** What is due for `interaction` at `at`: nothing once it has expired (the sweep resolves it instead). */
export function dueAt(interaction: StoredInteraction, at: number): Due {
  const due: Due = { steps: [], reminder: false };
  if (interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= at) return due;
  const keep = interaction.keep;
  const steps = keep?.escalate ?? [];
  for (let index = keep?.escalated ?? 0; index < steps.length; index++) {
    if (Date.parse(steps[index]!.at) > at) break;
    due.steps.push(index);
  }
  const remind = reminderAt(interaction);
  due.reminder = remind !== null && remind <= at;
  return due;
}
