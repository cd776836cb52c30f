/**
 * What the machine's updates do to the calls of a step: record an outcome, apply a human's
 * resolution, keep the parked sub-agents; and the pending interactions of a context (sub-agents'
 * included). Pure functions of plain data.
 *
 * A call is copied with new keys by `extend` (see extend.ts), not by a spread followed by new keys,
 * which leaves V8's fast path; the copy a rest pattern already made gets them with `Object.assign`,
 * whose source is the literal here. Keys keep the order a spread gives them.
 */
import { toolErrorResult } from '../results.js';
import { extend } from './extend.js';
import type {
  LoopContext,
  ParkedChild,
  Resolution,
  ResolvedRecord,
  StepCall,
  StepOutcome,
  StoredInteraction,
} from './state.js';

/** The result of a call whose pending interaction a new user message replaced. */
export const SUPERSEDED_RESULT = toolErrorResult(
  'superseded_by_user_message',
  'The user sent a new message instead of answering; this call was dropped. Read the new message and continue from it.',
);

/**
 * A call that may or may not have run (DESIGN §21): started by a worker that stopped, with no result
 * yet, its policy still to apply (sessions mark it `inDoubt`).
 */
export const isInDoubtCall = (call: StepCall): boolean =>
  call.inDoubt !== undefined &&
  call.inDoubt !== false &&
  (call.status === 'queued' || call.status === 'approved');

/**
 * The step after a user message replaced its open calls: each gets its one result (from `results`
 * for a call sessions found in doubt, which may have run, else "dropped"), and their open interactions
 * are recorded superseded. With `keepInDoubt`, calls in doubt stay open, to be settled by their
 * tool's `onInDoubt` before the message joins the transcript.
 */
export function supersededStep(
  step: StepCall[],
  at: string,
  keepInDoubt: boolean,
  results: Record<string, string> | undefined,
): { step: StepCall[]; records: ResolvedRecord[] } {
  const records: ResolvedRecord[] = [];
  const next = step.map((call): StepCall => {
    if (call.status === 'done' || (keepInDoubt && isInDoubtCall(call))) return call;
    const open = call.child
      ? pendingInteractions(call.child.context)
      : call.interaction
        ? [call.interaction]
        : [];
    for (const { id, kind, toolCallId } of call.status === 'pending' ? open : []) {
      records.push({ id, kind, toolCallId, resolution: 'superseded', at });
    }
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: 'done',
      result: results?.[call.toolCallId] ?? SUPERSEDED_RESULT,
    };
  });
  return { step: next, records };
}

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
    return Object.assign(rest, { status: 'done' as const, result: outcome.result });
  }
  if ('child' in outcome) return Object.assign(fresh, { status: 'pending' as const, child: outcome.child });
  if ('resume' in outcome) {
    return Object.assign(fresh, {
      status: 'resuming' as const,
      interaction: outcome.resume,
      askResponse: outcome.askResponse,
    });
  }
  return Object.assign(fresh, { status: 'pending' as const, interaction: outcome.interaction });
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
    return { ...call, interaction: extend(call.interaction, { approvals }) };
  }
  if (resolution.child) {
    const status = resolution.child.value === 'waitingInput' ? 'pending' : 'resuming';
    return extend(call, { status, child: resolution.child } as const);
  }
  if (resolution.result !== undefined) {
    const { interaction: _resolved, ...rest } = call;
    return Object.assign(rest, { status: 'done' as const, result: resolution.result });
  }
  // A call that asked keeps its interaction (the tool's state) until its `resume` has run.
  if (resolution.askResponse !== undefined) {
    return extend(call, { status: 'resuming' as const, askResponse: resolution.askResponse });
  }
  // An approved call keeps its interaction until it runs: a resume checks the tool's schema hash.
  return extend(call, {
    status: 'approved' as const,
    approvedInput: resolution.runInput,
    edited: resolution.edited,
  });
}
