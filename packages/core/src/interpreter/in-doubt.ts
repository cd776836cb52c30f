/**
 * Tools in doubt (DESIGN §21). A worker that takes a run over (its previous worker's lease lapsed)
 * finds the calls that were recorded `started` (see started.ts) and have no result: they may or may
 * not have run. Each is handled by its tool's `onInDoubt`: `'retry'` (default) runs it again with
 * the same idempotency key; `'ask'` pauses on an `in_doubt` interaction (approve = run again,
 * reject = the model is told it may or may not have run, provideInput = the result to record); a
 * function reconciles and returns the result to record, and `execute` never runs again.
 *
 * Not only takeovers (DESIGN §21, round 4): a retry, a message, and a stop of a run whose worker
 * died mark such calls too (sessions call {@link markInDoubt} on each), and a fork marks them
 * `'fork'`: the call may have run in the source under another idempotency key, so the fork asks,
 * whatever the policy. An `in_doubt` ask takes the tool's approval rules (assignees, quorum,
 * `allowRequester`): whoever may not approve the call may not have it run again either.
 */
import {
  isInDoubtCall,
  type LoopContext,
  type Resolution,
  type StepCall,
  type StoredInteraction,
} from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ApprovalRecord, ToolCall } from '../types.js';
import type { AskDraft } from './ask.js';
import { resolvePolicy } from './assignees.js';
import { emit } from './events.js';
import { execute } from './execute.js';
import type { DoubtHandling, Run } from './run.js';
import { markStarted } from './started.js';
import { parseToolInput } from './tool-input.js';

/**
 * Marks the calls of the run's open step that were started and have no result as in doubt (sessions
 * call this when they take a claim over, and before a retry, a message or a stop acts on a run a
 * worker left); `'fork'` for a fork's. Returns how many there are.
 */
export function markInDoubt(run: Run, mark: true | 'fork' = true): number {
  const context = run.state.context;
  let found = 0;
  const step = context.step?.map((call) => {
    if (!call.started || (call.status !== 'queued' && call.status !== 'approved')) return call;
    found++;
    // A fork's mark stays: that call asks, whoever plays it next.
    return call.inDoubt === 'fork' ? call : { ...call, inDoubt: mark };
  });
  if (found > 0) run.state = { ...run.state, context: { ...context, step: step ?? null } };
  return found;
}

/** Whether the call is in doubt and its policy still has to be applied (not after a human said "run it again"). */
export function isInDoubt(stepCall: StepCall, tool: AnyFunctionTool): boolean {
  return (
    isInDoubtCall(stepCall) && stepCall.interaction?.kind !== 'in_doubt' && !tool.subagent && !tool.builtin
  );
}

/**
 * Applies the tool's `onInDoubt` to a call in doubt: the result (reconciled) or the interaction to
 * wait for (`'ask'`); undefined for `'retry'`, when the call runs again as usual.
 */
export async function inDoubtOutcome(
  run: Run,
  tool: AnyFunctionTool,
  stepCall: StepCall,
  call: ToolCall,
): Promise<{ result: string } | { draft: AskDraft } | undefined> {
  const forked = stepCall.inDoubt === 'fork';
  const policy = forked ? 'ask' : (tool.onInDoubt ?? 'retry');
  emit(run, {
    type: 'tool_in_doubt',
    toolCallId: stepCall.toolCallId,
    toolName: tool.name,
    policy: typeof policy === 'function' ? 'reconcile' : policy,
  });
  if (policy === 'retry') return undefined;
  const given =
    stepCall.status === 'approved' && stepCall.approvedInput !== undefined
      ? stepCall.approvedInput
      : call.function.arguments;
  const raw = given === '' ? '{}' : given;
  const parsed = parseToolInput(tool, raw);
  if (policy === 'ask') {
    // A user sent a message instead: nobody is asked, and the model is told it may have run.
    if (run.state.context.held) return { result: inDoubtSupersededResult(tool.name) };
    const rules = await resolvePolicy(
      run,
      tool.name,
      stepCall.toolCallId,
      parsed.ok ? parsed.input : undefined,
      tool.approval,
    );
    if ('result' in rules) return rules;
    const draft: AskDraft = {
      kind: 'in_doubt',
      input: raw,
      reason: forked ? forkReason(run, tool, stepCall) : takeoverReason(run, tool, stepCall),
      expiresAt: null,
      schemaHash: tool.schemaHash,
    };
    return { draft: Object.assign(rules.fields, draft) };
  }
  if (!parsed.ok) return { result: parsed.result };
  const outcome = await execute(run, tool, call, parsed.input, { reconcile: true });
  return outcome && 'result' in outcome ? outcome : undefined;
}

function takeoverReason(run: Run, tool: AnyFunctionTool, stepCall: StepCall): string {
  return `${tool.name} was running when its worker stopped, and may or may not have run (idempotency key ${run.runId}:${stepCall.toolCallId}). Approve to run it again, reject to go on without it, or give the result it had.`;
}

function forkReason(run: Run, tool: AnyFunctionTool, stepCall: StepCall): string {
  const source = run.forkedFrom?.runId ?? 'the run this one was forked from';
  return `${tool.name} was started in run ${source} before this run was forked from it, and may have run there (idempotency key ${source}:${stepCall.toolCallId}). Approve to run it in this run (key ${run.runId}:${stepCall.toolCallId}), reject to go on without it, or give the result it had.`;
}

/**
 * A human's decision on an `in_doubt` interaction: `approve` runs the call again, `reject` gives the
 * model `tool_in_doubt`, `input` (`provideInput`) records the value as the call's result; `cancel`
 * is a rejection without a word. Other response types are refused by the caller's kind check.
 */
export function decideInDoubt(
  interaction: StoredInteraction,
  response: { type: string; value?: unknown; rationale?: string; reason?: string },
  at: string,
  principal?: string,
): Resolution | undefined {
  const base = {
    id: interaction.id,
    toolCallId: interaction.toolCallId,
    kind: interaction.kind,
    at,
    ...(principal !== undefined ? { principal } : {}),
  };
  const toolCallId = interaction.toolCallId;
  const rationale = response.rationale !== undefined ? { rationale: response.rationale } : {};
  switch (response.type) {
    case 'approve': {
      // Running it again is an approval of the call: the tool's quorum counts, as on its approval.
      const quorum = interaction.quorum ?? 1;
      let counted: { approvals: ApprovalRecord[] } | Record<string, never> = {};
      if (quorum > 1) {
        const approval: ApprovalRecord = { principal: principal ?? '(parent agent)', ...rationale, at };
        const approvals = [...(interaction.approvals ?? []), approval];
        if (approvals.length < quorum) return { toolCallId, records: [], approval };
        counted = { approvals };
      }
      return {
        toolCallId,
        records: [{ ...base, resolution: 'approved', ...rationale, ...counted }],
        runInput: interaction.input,
      };
    }
    case 'input': {
      const value = response.value;
      const result = typeof value === 'string' ? value : (JSON.stringify(value ?? null) ?? 'null');
      return {
        toolCallId,
        records: [{ ...base, resolution: 'answered', value: JSON.stringify(value ?? null), ...rationale }],
        result,
      };
    }
    case 'reject':
    case 'cancel': {
      const why = response.rationale ?? response.reason;
      return {
        toolCallId,
        records: [
          {
            ...base,
            resolution: response.type === 'reject' ? 'rejected' : 'cancelled',
            ...(why !== undefined ? { rationale: why } : {}),
          },
        ],
        result: toolErrorResult(
          'tool_in_doubt',
          `${interaction.toolName} was running when its worker stopped, and it may or may not have run; the user chose not to run it again. Check whether its effect happened before calling it again.`,
          { rationale: why ?? null },
        ),
      };
    }
    default:
      return undefined;
  }
}

/**
 * The result of a call in doubt that a new user message left undecided: never "dropped", since it
 * may have run (a payment may have gone through).
 */
export const inDoubtSupersededResult = (toolName: string): string =>
  toolErrorResult(
    'tool_in_doubt',
    `${toolName} was running when its worker stopped, and it may or may not have run; the user sent a new message instead of deciding whether to run it again. Check whether its effect happened before calling it again.`,
  );

/** The results a new user message gives the open calls of `context` that may have run. */
function supersededInDoubt(context: LoopContext): Record<string, string> | undefined {
  let results: Record<string, string> | undefined;
  for (const call of context.step ?? []) {
    if (isInDoubtCall(call) || (call.status === 'pending' && call.interaction?.kind === 'in_doubt')) {
      results ??= {};
      results[call.toolCallId] = inDoubtSupersededResult(call.toolName);
    }
  }
  return results;
}

/** What sessions hand the loop (`run.doubt`): store mode's handling of tools in doubt. */
export const IN_DOUBT: DoubtHandling = {
  markStarted,
  isInDoubt,
  outcome: inDoubtOutcome,
  superseded: supersededInDoubt,
  decide: decideInDoubt,
};
