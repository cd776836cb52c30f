/**
 * A run's budget in the terminal (DESIGN §20): the spend against the limits ("Budget: 4 / 30
 * steps") after each turn and once when a run is resumed, and the `budget` interaction asked as an
 * approval ("This run has spent 30 steps of 30 steps. Allow another 15 steps?"): approving sends
 * `approve` with `extend` (the input, editable), rejecting ends the turn `budget_exceeded`.
 */
import type { ApprovalPayload, BudgetLimits, BudgetPayload, Spend } from '@turnkit/core';
import type { Ui } from './ui.js';

const KEYS = ['steps', 'tokens', 'toolCalls', 'costUsd'] as const;
const UNIT = { steps: 'steps', tokens: 'tokens', toolCalls: 'toolCalls', costUsd: 'cost' } as const;

const amount = (ui: Ui, key: (typeof KEYS)[number], n: number): string =>
  ui.t(key === 'steps' && n === 1 ? 'step' : UNIT[key], { n: key === 'costUsd' ? n.toFixed(4) : String(n) });

/** `"15 steps, 1000 tokens"`: each amount `limit` names, read from `values`. */
export function amounts(
  ui: Ui,
  values: Partial<Record<(typeof KEYS)[number], number>>,
  limit: BudgetLimits = values,
): string {
  return KEYS.filter((key) => typeof limit[key] === 'number')
    .map((key) => amount(ui, key, values[key] ?? 0))
    .join(', ');
}

/** `"4 / 30 steps"`: the spend against each limit; empty without a budget. */
export function spendText(ui: Ui, spend: Spend, budget: BudgetLimits | undefined): string {
  if (!budget) return '';
  return KEYS.filter((key) => typeof budget[key] === 'number')
    .map((key) =>
      key === 'costUsd'
        ? `${amount(ui, key, spend[key])} / ${amount(ui, key, budget[key]!)}`
        : `${spend[key]} / ${amount(ui, key, budget[key]!)}`,
    )
    .join(' · ');
}

/** What approving adds: half of each limit reached again (at least one). */
export function extensionOf(limit: BudgetLimits): BudgetLimits {
  const extend: BudgetLimits = {};
  for (const key of KEYS) {
    const value = limit[key];
    if (typeof value !== 'number') continue;
    extend[key] = key === 'costUsd' ? Math.max(0.0001, value / 2) : Math.max(1, Math.ceil(value / 2));
  }
  return extend;
}

/** The budget interaction as the approval the prompter asks: its input is the extension. */
export function budgetApproval(ui: Ui, payload: BudgetPayload): ApprovalPayload {
  const extend = extensionOf(payload.limit);
  return {
    toolName: ui.t('budgetTool'),
    input: extend,
    reason: ui.t('budgetAsk', {
      spent: amounts(ui, payload.spent, payload.limit),
      limit: amounts(ui, payload.limit),
      more: amounts(ui, extend),
    }),
  };
}
