/**
 * What a run spends and may spend (DESIGN §20): model calls (steps), tokens, cost and tool calls
 * are counted in the top run's context across turns (a sub-agent's spending counts towards its
 * parent's run); before the top agent's next model call or step would start past the run's limits
 * (the agent's `budget`, the call's merged over it, plus every `extend`), the run pauses on an
 * interaction of kind `budget`. The counts are bookkeeping, not a decision of the loop, so they are
 * written into the context directly; the pause and its resolution go through the machine.
 */
import { extend, type StoredInteraction } from '../machine/index.js';
import { BUDGET_KEYS, mergeBudgets } from '../tools/index.js';
import type { BudgetLimits, ModelResponse, Spend } from '../types.js';
import { nowIso, type Run, rootOf, send, stateOf } from './run.js';

const NOTHING_SPENT: Spend = Object.freeze({
  steps: 0,
  inputTokens: 0,
  outputTokens: 0,
  tokens: 0,
  toolCalls: 0,
  costUsd: 0,
});

function topOf(run: Run): Run {
  let top = run;
  while (top.parent) top = top.parent;
  return top;
}

/** What the run has spent so far. */
export function spentOf(run: Run): Spend {
  return topOf(run).state.context.spent ?? NOTHING_SPENT;
}

/** The limits the run is held to now (agent's, call's over them, plus extensions); undefined without any. */
export function limitsOf(run: Run): BudgetLimits | undefined {
  const top = topOf(run);
  const merged = mergeBudgets(rootOf(top).budget, top.options.budget);
  const extended = top.state.context.extended;
  if (!merged) return undefined;
  const limits: BudgetLimits = { ...merged };
  for (const key of BUDGET_KEYS) {
    if (limits[key] !== undefined && extended?.[key] !== undefined) limits[key] += extended[key];
  }
  return limits;
}

function addSpend(run: Run, change: Partial<Spend>): void {
  const top = topOf(run);
  const spent = { ...spentOf(top) };
  for (const key of Object.keys(change) as (keyof Spend)[]) spent[key] += change[key] ?? 0;
  // A run's first spend adds the `spent` key: made by `extend`, as a spread then a new key is slow.
  top.state = { value: top.state.value, context: extend(top.state.context, { spent }) };
}

/** A model call's cost: from the agent's `pricing` (by adapter name, or its part after the last `:`), else the adapter's. */
export function costOf(run: Run, response: ModelResponse | undefined): number {
  // After a handoff the model is the playing agent's, priced by it, else by the root (DESIGN §27).
  const { model } = run.agent;
  const pricing = run.agent.pricing ?? rootOf(run).pricing;
  const price = pricing?.[model.name] ?? pricing?.[model.name.slice(model.name.lastIndexOf(':') + 1)];
  const usage = response?.usage;
  if (price && usage) {
    return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
  }
  const reported = response?.costUsd;
  return typeof reported === 'number' && Number.isFinite(reported) && reported >= 0 ? reported : 0;
}

/** Counts one model call (answered or not) with its tokens and cost. */
export function spendModelCall(run: Run, response: ModelResponse | undefined, costUsd: number): void {
  const inputTokens = response?.usage?.inputTokens ?? 0;
  const outputTokens = response?.usage?.outputTokens ?? 0;
  addSpend(run, { steps: 1, inputTokens, outputTokens, tokens: inputTokens + outputTokens, costUsd });
}

/** Counts a history compaction's model call (DESIGN §22): its tokens and cost, not a step. */
export function spendCompaction(run: Run, response: ModelResponse, costUsd: number): void {
  const inputTokens = response.usage?.inputTokens ?? 0;
  const outputTokens = response.usage?.outputTokens ?? 0;
  addSpend(run, { inputTokens, outputTokens, tokens: inputTokens + outputTokens, costUsd });
}

/** Counts one tool call that starts running. */
export function spendToolCall(run: Run): void {
  addSpend(run, { toolCalls: 1 });
}

/** The runnable calls of the step that would start a function tool. */
function startingToolCalls(run: Run): number {
  let count = 0;
  for (const call of run.state.context.step ?? []) {
    // A resuming call (an answered ask, a sub-agent going on) was counted when it first started.
    if (call.status !== 'queued' && call.status !== 'approved') continue;
    if (run.agent.toolIndex.get(call.toolName)?.kind === 'function') count++;
  }
  return count;
}

/** The limits the next model call or step would start past, or null when it may start. */
function reached(run: Run, limits: BudgetLimits): BudgetLimits | null {
  const spent = spentOf(run);
  const over: BudgetLimits = {};
  if (stateOf(run) === 'callingModel') {
    if (limits.steps !== undefined && spent.steps >= limits.steps) over.steps = limits.steps;
    if (limits.tokens !== undefined && spent.tokens >= limits.tokens) over.tokens = limits.tokens;
    if (limits.costUsd !== undefined && spent.costUsd >= limits.costUsd) over.costUsd = limits.costUsd;
  } else if (limits.toolCalls !== undefined) {
    const starting = startingToolCalls(run);
    if (starting > 0 && spent.toolCalls + starting > limits.toolCalls) over.toolCalls = limits.toolCalls;
  }
  return Object.keys(over).length > 0 ? over : null;
}

/**
 * Before the top run's next model call or step: pauses it on a `budget` interaction when that
 * would start past its limits, and returns the interaction; null when it may go on.
 */
export function pauseForBudget(run: Run): StoredInteraction | null {
  if (run.parent) return null;
  const limits = limitsOf(run);
  if (!limits || !reached(run, limits)) return null;
  const interaction: StoredInteraction = {
    id: `${run.idPrefix}:${run.state.context.interactionCount + 1}`,
    kind: 'budget',
    toolCallId: '',
    toolName: '',
    agentPath: run.agentPath,
    createdAt: nowIso(run),
    expiresAt: null,
    budget: { spent: spentOf(run), limit: limits },
  };
  send(run, { type: 'BUDGET_REACHED', interaction });
  return interaction;
}
