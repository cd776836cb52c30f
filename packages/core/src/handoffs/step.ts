/**
 * The rules of a step that hands off (DESIGN §27): the other calls of the step run first, then the
 * first transfer call; a second transfer call in the step gets `handoff_ignored`. The switch itself
 * happens when the step ends, so every call of the step — a question asked beside the handoff
 * included — is settled by the agent that made it.
 */
import type { StepCall } from '../machine/index.js';
import { errorCodeOf, toolErrorResult } from '../results.js';
import type { AnyAgent } from '../tools/index.js';
import type { ResolvedHandoff } from './handoff.js';
import { transferOf } from './transfer.js';

/** The result of a transfer call after the first one of its step. */
export const HANDOFF_IGNORED = toolErrorResult(
  'handoff_ignored',
  'Another handoff was called in the same step, and only the first one moves the conversation. Call one handoff at a time.',
);

/** The transfer calls of a step, by call id: the first one (the handoff), and those it makes ignored. */
export function transferCalls(
  agent: AnyAgent,
  step: readonly StepCall[],
): { first?: string; ignored: Set<string> } {
  const ignored = new Set<string>();
  let first: string | undefined;
  for (const call of step) {
    if (!transferOf(agent, call.toolName)) continue;
    if (first === undefined) first = call.toolCallId;
    else ignored.add(call.toolCallId);
  }
  return first === undefined ? { ignored } : { first, ignored };
}

/**
 * The handoff a step that has ended made: its first transfer call, with a result (`resultOf`, the
 * step's results as they joined the transcript) that is not an error — it ran: approved, if it
 * needed approval; not superseded, rejected or changed.
 */
export function handoffMade(
  agent: AnyAgent,
  step: readonly StepCall[],
  resultOf: (toolCallId: string) => string | undefined,
): ResolvedHandoff | undefined {
  const { first } = transferCalls(agent, step);
  const call = step.find((candidate) => candidate.toolCallId === first);
  const result = call && resultOf(call.toolCallId);
  if (!call || result === undefined || errorCodeOf(result) !== undefined) return undefined;
  return transferOf(agent, call.toolName);
}
