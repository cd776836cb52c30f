/**
 * What the machine's updates do to the calls of a step: record an outcome, apply a human's
 * resolution, keep the parked sub-agents; and the pending interactions of a context (sub-agents'
 * included). Pure functions of plain data.
 */
import { toolErrorResult } from '../results.js';
import type {
  LoopContext,
  ParkedChild,
  Resolution,
  StepCall,
  StepOutcome,
  StoredInteraction,
} from './state.js';

/** The result of a call whose pending interaction a new user message replaced. */
export const SUPERSEDED_RESULT = toolErrorResult(
  'superseded_by_user_message',
  'The user sent a new message instead of answering; this call was dropped. Read the new message and continue from it.',
);

/** Interactions waiting for a human, in call order, including those of paused sub-agents. */
export function pendingInteractions(context: LoopContext): StoredInteraction[] {
  const pending: StoredInteraction[] = context.budgetPause ? [context.budgetPause] : [];
  for (const call of context.step ?? []) {
    if (call.status !== 'pending') continue;
    if (call.child) pending.push(...pendingInteractions(call.child.context));
    else if (call.interaction) pending.push(call.interaction);
  }
  return pending;
}

/** A call after the step produced its outcome. */
export function withOutcome(call: StepCall, outcome: StepOutcome): StepCall {
  // A response is used once: a `resume` that ends, or asks again, leaves none behind.
  const { askResponse: _used, ...fresh } = call;
  if ('result' in outcome) {
    const { child: _dropped, ...rest } = fresh;
    return { ...rest, status: 'done', result: outcome.result };
  }
  if ('child' in outcome) return { ...fresh, status: 'pending', child: outcome.child };
  return { ...fresh, status: 'pending', interaction: outcome.interaction };
}

/** The parked sub-agents after a step's outcomes. */
export function withParked(
  parked: ParkedChild[] | undefined,
  outcomes: StepOutcome[],
): ParkedChild[] | undefined {
  let next = parked;
  for (const outcome of outcomes) {
    if (!('park' in outcome) || !outcome.park) continue;
    const { key, entry } = outcome.park;
    next = (next ?? []).filter((item) => item.key !== key);
    if (entry) next = next.concat(entry);
  }
  return next && next.length > 0 ? next : undefined;
}

/** A pending call after a human's resolution. */
export function withResolution(call: StepCall, resolution: Resolution): StepCall {
  if (resolution.approval && call.interaction) {
    const approvals = [...(call.interaction.approvals ?? []), resolution.approval];
    return { ...call, interaction: { ...call.interaction, approvals } };
  }
  if (resolution.child) {
    return {
      ...call,
      status: resolution.child.value === 'waitingInput' ? 'pending' : 'resuming',
      child: resolution.child,
    };
  }
  if (resolution.result !== undefined) {
    const { interaction: _resolved, ...rest } = call;
    return { ...rest, status: 'done', result: resolution.result };
  }
  // A call that asked keeps its interaction (the tool's state) until its `resume` has run.
  if (resolution.askResponse !== undefined) {
    return { ...call, status: 'resuming', askResponse: resolution.askResponse };
  }
  // An approved call keeps its interaction until it runs: a resume checks the tool's schema hash.
  return { ...call, status: 'approved', approvedInput: resolution.runInput, edited: resolution.edited };
}
