/**
 * Who may answer (DESIGN §20). When an interaction is asked, its `assignees` (a list, or a
 * function of the input and context, called then), `quorum` and `allowRequester` are resolved and
 * stored with it; when a response comes, the responder's principal (`TurnOptions.principal`) is
 * checked against them before anything changes. An assignee may load a run started by another
 * principal (`loadRun`'s `assignee` access), but only to see it and respond to what it is assigned.
 */
import { StateError } from '../errors.js';
import type { AskSchedule, StoredInteraction } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { ApprovalPolicy, Assignees, KeptAskOptions } from '../tools/index.js';
import type { InteractionResponse } from '../types.js';
import { guarded } from './context-guard.js';
import { toolContext } from './execute.js';
import { now, type Run } from './run.js';

/** The fields a policy adds to a stored interaction. */
export type PolicyFields = Pick<StoredInteraction, 'assignees' | 'quorum' | 'allowRequester' | 'keep'>;

/**
 * Resolves a policy when its interaction is asked: the assignees list (calling a function of the
 * input and context), the quorum and `allowRequester`; or the `tool_error` result the model reads
 * when the app's function fails or leaves nobody who could answer.
 */
export async function resolvePolicy(
  run: Run,
  toolName: string,
  toolCallId: string,
  input: unknown,
  policy: ApprovalPolicy<never, never> | undefined,
): Promise<{ fields: PolicyFields } | { result: string }> {
  const fields: PolicyFields = {};
  if (!policy) return { fields };
  const fail = (problem: string) => ({
    result: toolErrorResult('tool_error', `${toolName} could not name who may answer: ${problem}`),
  });
  const given = policy.assignees as Assignees<unknown, unknown> | undefined;
  if (typeof given === 'function') {
    const signal = run.options.signal ?? new AbortController().signal;
    const settled = await guarded(run, () => given(input, toolContext(run, toolCallId, signal)));
    if (settled.problem) return fail(settled.problem);
    if (!settled.ok) {
      return fail(settled.error instanceof Error ? settled.error.message : String(settled.error));
    }
    const list = settled.value;
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && item !== '')) {
      return fail('its assignees function must return a list of principals (non-empty strings)');
    }
    fields.assignees = [...new Set(list as string[])];
  } else if (given !== undefined) {
    fields.assignees = [...new Set(given)];
  }
  if (fields.assignees && fields.assignees.length === 0) return fail('the assignees list is empty');
  if (policy.quorum !== undefined && policy.quorum > 1) {
    if (fields.assignees && policy.quorum > fields.assignees.length) {
      return fail(
        `a quorum of ${policy.quorum} needs at least as many assignees (${fields.assignees.length})`,
      );
    }
    fields.quorum = policy.quorum;
  }
  if (policy.allowRequester === false) fields.allowRequester = false;
  const keep = scheduleOf(run, policy);
  if (keep) fields.keep = keep;
  return { fields };
}

/** DESIGN §30: an ask's reminder, and its escalation steps at the times they fall due (from now). */
function scheduleOf(run: Run, policy: KeptAskOptions): AskSchedule | undefined {
  const { remindBeforeMs, escalate } = policy;
  if (remindBeforeMs === undefined && escalate === undefined) return undefined;
  const asked = now(run).getTime();
  return {
    ...(remindBeforeMs !== undefined ? { remindBeforeMs } : {}),
    ...(escalate !== undefined
      ? {
          escalate: escalate.map((step) => ({
            at: new Date(asked + step.afterMs).toISOString(),
            assignees: [...new Set(step.assignees)],
          })),
        }
      : {}),
  };
}

function topOf(run: Run): Run {
  let top = run;
  while (top.parent) top = top.parent;
  return top;
}

function notAssignee(message: string): StateError {
  return new StateError('NOT_ASSIGNEE', `${message} Nothing changed.`);
}

/**
 * Refuses, with `NOT_ASSIGNEE`, a response from a principal the interaction does not let answer:
 * not among its assignees, the run's own principal under `allowRequester: false`, or unknown
 * where a quorum counts principals. A caller that does not own the run may only respond to what it
 * is assigned. A cancellation by the run's owner (or a caller that names no principal: the app's
 * own code) is always allowed, as a sweeper or a stop must be able to clear what waits.
 */
export function checkResponder(
  run: Run,
  interaction: StoredInteraction,
  type: InteractionResponse['type'],
): void {
  const who = run.options.principal;
  const owner = topOf(run).principal;
  const assigned = who !== undefined && interaction.assignees?.includes(who) === true;
  const foreign = who !== undefined && owner !== undefined && who !== owner;
  const label = who === undefined ? 'A caller without a principal' : `Principal ${JSON.stringify(who)}`;
  if (type === 'cancel') {
    if (foreign && !assigned) throw notAssignee(`${label} may not cancel interaction ${interaction.id}.`);
    return;
  }
  if (interaction.assignees && !assigned) {
    throw notAssignee(
      `${label} is not an assignee of interaction ${interaction.id}: only ${interaction.assignees.map((name) => JSON.stringify(name)).join(', ')} may respond (pass their \`principal\`).`,
    );
  }
  if (!interaction.assignees && foreign) {
    throw notAssignee(
      `${label} may not respond to interaction ${interaction.id}: it is not assigned to them.`,
    );
  }
  if (interaction.allowRequester === false && owner !== undefined && (who === undefined || who === owner)) {
    throw notAssignee(
      `Interaction ${interaction.id} may not be decided by the principal that started the run (four eyes): another assignee must respond.`,
    );
  }
  if (type === 'approve' && (interaction.quorum ?? 1) > 1 && who === undefined) {
    throw notAssignee(
      `Interaction ${interaction.id} needs ${interaction.quorum} distinct approvals, counted by principal: pass the approver's \`principal\`.`,
    );
  }
}
