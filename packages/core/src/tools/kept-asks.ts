/**
 * Asks that are kept (DESIGN §30): the `remindBeforeMs` and `escalate` options every ask takes
 * beside its expiry — a question tool, a tool's approvals, a `ctx.ask`, and (later) a review's ask —
 * and the one check they all share. The sweeper acts on them (sessions/reminders.ts).
 */
import { TurnkitError } from '../errors.js';

/** One step of an escalation chain: after `afterMs` (counted from the ask), these principals answer instead. */
export interface EscalationStep {
  /** Milliseconds after the ask was made; steps are given in increasing order. */
  afterMs: number;
  /** Who may answer from then on: they replace the ask's assignees (earlier ones get `NOT_ASSIGNEE`). */
  assignees: string[];
}

/**
 * What keeps an ask alive while it waits (DESIGN §30), taken wherever an ask takes its expiry. The
 * sweeper (`sessions.sweep`, `POST /sweep`) acts on it and calls `onInteraction(pending, run, { reason })`
 * once per reminder and per escalation step.
 */
export interface KeptAskOptions {
  /**
   * Remind this long before the ask expires (`reason: 'reminder'`); needs an expiry. Once per expiry:
   * an ask extended (`sessions.extend`) is reminded again before its new expiry.
   */
  remindBeforeMs?: number | undefined;
  /** Hand the ask to other principals as time passes (`reason: 'escalated'`); the expiry stays as it is. */
  escalate?: EscalationStep[] | undefined;
}

const whole = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * What is wrong with kept-ask options, or null. `expires`: whether the ask has (or may have) an
 * expiry; a reminder without one could never be sent.
 */
export function keptAskProblem(options: KeptAskOptions, expires: boolean): string | null {
  const { remindBeforeMs, escalate } = options;
  if (remindBeforeMs !== undefined) {
    if (!whole(remindBeforeMs))
      return `remindBeforeMs must be a whole number of ms > 0, got ${String(remindBeforeMs)}`;
    if (!expires) return 'remindBeforeMs needs an expiry to remind before: give the ask a timeout too';
  }
  if (escalate === undefined) return null;
  if (!Array.isArray(escalate) || escalate.length === 0) {
    return 'escalate must be a non-empty list of { afterMs, assignees } steps';
  }
  let last = 0;
  for (const [index, step] of escalate.entries()) {
    const at = `escalate[${index}]`;
    if (typeof step !== 'object' || step === null) return `${at} must be an object { afterMs, assignees }`;
    if (!whole(step.afterMs))
      return `${at}.afterMs must be a whole number of ms > 0, got ${String(step.afterMs)}`;
    if (step.afterMs <= last) return `${at}.afterMs must be later than the step before it (${last} ms)`;
    last = step.afterMs;
    const { assignees } = step;
    if (!Array.isArray(assignees) || assignees.length === 0) {
      return `${at}.assignees must be a non-empty list of principals`;
    }
    if (!assignees.every((name) => typeof name === 'string' && name !== '')) {
      return `${at}.assignees must hold non-empty strings (principals) only`;
    }
  }
  return null;
}

/** Refuses kept-ask options no sweeper could follow (`CONFIG_INVALID`), for a tool or question tool being built. */
export function checkKeptAsk(owner: string, options: KeptAskOptions, expires: boolean): void {
  const problem = keptAskProblem(options, expires);
  if (problem) throw new TurnkitError('CONFIG_INVALID', `${owner}: ${problem}.`);
}
