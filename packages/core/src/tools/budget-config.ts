/**
 * Budgets and pricing as an app gives them (DESIGN §20): checked once where they are given (an
 * agent, a call's options, an `extend`), and merged — the call's limits over the agent's — into
 * the limits a run is held to. Counting what a run spends is the interpreter's job.
 */
import { TurnkitError } from '../errors.js';
import type { BudgetLimits, ModelPrice } from '../types.js';

/** The limits a budget may set, in the order they are reported. */
export const BUDGET_KEYS = ['tokens', 'costUsd', 'toolCalls', 'steps'] as const;

/**
 * What is wrong with a budget (`{ tokens?, costUsd?, toolCalls?, steps? }`, each a finite
 * number >= 0), one line per problem; empty when it fits.
 */
export function budgetProblems(value: unknown, path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [`${path}: expected an object such as { tokens?, costUsd?, toolCalls?, steps? }`];
  }
  const problems: string[] = [];
  for (const [key, limit] of Object.entries(value)) {
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
      problems.push(`${path}.${key}: not a budget limit (use tokens, costUsd, toolCalls or steps)`);
    } else if (limit !== undefined && !(typeof limit === 'number' && Number.isFinite(limit) && limit >= 0)) {
      problems.push(`${path}.${key}: expected a finite number >= 0`);
    }
  }
  return problems;
}

/** Refuses a budget no run could be held to (`CONFIG_INVALID`, naming each wrong field). */
export function checkBudget(owner: string, value: unknown): BudgetLimits {
  const problems = budgetProblems(value, 'budget');
  if (problems.length > 0) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: the budget does not fit:\n- ${problems.join('\n- ')}`,
    );
  }
  return value as BudgetLimits;
}

/** Refuses a pricing table that is not `{ [model]: { inputPerMTok, outputPerMTok } }` with prices >= 0. */
export function checkPricing(owner: string, value: unknown): Record<string, ModelPrice> {
  const fits = (price: unknown) => {
    const { inputPerMTok, outputPerMTok } = (price ?? {}) as Record<string, unknown>;
    return [inputPerMTok, outputPerMTok].every(
      (number) => typeof number === 'number' && Number.isFinite(number) && number >= 0,
    );
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: pricing must be an object { [model]: { inputPerMTok, outputPerMTok } }.`,
    );
  }
  for (const [model, price] of Object.entries(value)) {
    if (!fits(price)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${owner}: pricing[${JSON.stringify(model)}] must be { inputPerMTok, outputPerMTok }, US dollars per million tokens, each >= 0.`,
      );
    }
  }
  return value as Record<string, ModelPrice>;
}

/** The call's limits over the agent's, per limit; undefined when neither sets any. */
export function mergeBudgets(
  agent: BudgetLimits | undefined,
  call: BudgetLimits | undefined,
): BudgetLimits | undefined {
  if (!agent && !call) return undefined;
  const merged: BudgetLimits = {};
  for (const key of BUDGET_KEYS) {
    const limit = call?.[key] ?? agent?.[key];
    if (limit !== undefined) merged[key] = limit;
  }
  return merged;
}
