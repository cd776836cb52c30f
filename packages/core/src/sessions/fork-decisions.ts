/**
 * What a fork may not inherit (DESIGN §21, round 4): a decision. The source's humans approved a
 * call, answered a tool's ask, or gave part of a quorum for the source run, under the source's
 * idempotency keys; a fork plays on under its own keys, so each of those decisions is asked again
 * (a new interaction id, its approvals cleared), and a call the source started with no result yet
 * is in doubt (`'fork'`: the fork asks, whatever the tool's `onInDoubt`). Pure functions of the
 * run's machine state; sub-agents' steps are reopened the same way.
 */
import { markInDoubt, type Run } from '../interpreter/index.js';
import type { LoopContext, StepCall, StoredInteraction } from '../machine/index.js';

/** The interaction asked again in the fork: a new id, asked now, with the time it had to run. */
function askedAgain(
  interaction: StoredInteraction,
  id: string,
  now: number,
  note?: string,
): StoredInteraction {
  const { approvals: _cleared, ...rest } = interaction;
  const ttl =
    interaction.expiresAt === null
      ? null
      : Date.parse(interaction.expiresAt) - Date.parse(interaction.createdAt);
  const reason =
    note === undefined ? {} : { reason: interaction.reason ? `${note} ${interaction.reason}` : note };
  return {
    ...rest,
    id,
    createdAt: new Date(now).toISOString(),
    expiresAt: ttl === null || !Number.isFinite(ttl) ? null : new Date(now + Math.max(ttl, 0)).toISOString(),
    ...reason,
  };
}

/** The prefix of an interaction id (`agent:3` → `agent`, a sub-agent's `parent/child@call:2` → `parent/child@call`). */
const prefixOf = (id: string) => id.slice(0, Math.max(id.lastIndexOf(':'), 0));

/**
 * The context with every decided call of its step (and of its sub-agents' steps) pending again;
 * the same object when nothing was decided.
 */
function reopenedContext(context: LoopContext, now: number, source: string): LoopContext {
  if (!context.step) return context;
  let count = context.interactionCount;
  let changed = false;
  const step = context.step.map((call): StepCall => {
    const interaction = call.interaction;
    const decided =
      interaction !== undefined &&
      (call.status === 'approved' || (call.status === 'resuming' && call.askResponse !== undefined));
    if (decided) {
      changed = true;
      const id = `${prefixOf(interaction.id)}:${++count}`;
      const note =
        call.status === 'approved'
          ? `Approved in run ${source} before this run was forked from it${call.started ? ', where it may have run' : ''}: it runs here only if approved again.`
          : undefined;
      return {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        status: 'pending',
        interaction: askedAgain(interaction, id, now, note),
      };
    }
    if (call.status === 'pending' && interaction?.approvals !== undefined) {
      changed = true;
      const { approvals: _cleared, ...rest } = interaction;
      return { ...call, interaction: rest };
    }
    if (call.child) {
      const child = reopenedContext(call.child.context, now, source);
      if (child !== call.child.context) {
        changed = true;
        return { ...call, child: { ...call.child, context: child } };
      }
    }
    return call;
  });
  return changed ? { ...context, step, interactionCount: count } : context;
}

/**
 * Makes the forked run ask again for what the source decided, and marks the calls the source
 * started without a result in doubt (`'fork'`). Its announcements start afresh: the source's
 * `notified` ids are the source's, and the fork's asks are announced under the fork's run id.
 */
export function withoutInheritedDecisions(run: Run, source: string, now: number): void {
  const context = reopenedContext(run.state.context, now, source);
  if (context !== run.state.context) run.state = { ...run.state, context };
  markInDoubt(run, 'fork');
  delete run.notified;
}
