// What a run may spend (DESIGN §20): the line that shows its spend against its limits, and the
// card of a `budget` interaction (payload `{ spent, limit }`) that asks whether it may spend more:
// Approve raises each limit reached by its extension, Stop rejects (the turn ends `budget_exceeded`).

import { errorLine } from './cards.js';
import { h } from './dom.js';

/** The limits a budget can have, with the key of their unit's string and their key in a spend. */
const LIMITS = [
  { key: 'steps', unit: 'unitSteps' },
  { key: 'tokens', unit: 'unitTokens' },
  { key: 'toolCalls', unit: 'unitToolCalls' },
  { key: 'costUsd', unit: 'unitCostUsd' },
];

const limitsOf = (limit) => LIMITS.filter(({ key }) => typeof limit?.[key] === 'number');

/** The spend of a view against its budget, e.g. "4 / 12 steps"; empty without a budget. */
export function budgetLine(view, t) {
  if (!view.budget) return '';
  return limitsOf(view.budget)
    .map(({ key, unit }) => {
      const spent = view.spend?.[key] ?? 0;
      return key === 'costUsd'
        ? `${t(unit, spent)} / ${t(unit, view.budget[key])}`
        : `${spent} / ${t(unit, view.budget[key])}`;
    })
    .join(' · ');
}

/** What Approve adds: half of each limit reached again (at least one step, call or token). */
export function extensionOf(limit) {
  const extend = {};
  for (const { key } of limitsOf(limit)) {
    extend[key] =
      key === 'costUsd' ? Math.max(0.0001, limit[key] / 2) : Math.max(1, Math.ceil(limit[key] / 2));
  }
  return extend;
}

const amounts = (values, t) =>
  limitsOf(values)
    .map(({ key, unit }) => t(unit, values[key]))
    .join(', ');

/** The card of a pending `budget` interaction; `onApprove(extend)` or `onStop()`. */
export function budgetCard(interaction, t, { onApprove, onStop }) {
  const { spent, limit } = interaction.payload;
  const extend = extensionOf(limit);
  const spentOnly = Object.fromEntries(limitsOf(limit).map(({ key }) => [key, spent?.[key] ?? 0]));
  const more = amounts(extend, t);
  return h(
    'form',
    {
      class: 'card budget-card',
      'data-id': interaction.id,
      'aria-label': t('budgetCard'),
      onsubmit: (event) => {
        event.preventDefault();
        onApprove(extend);
      },
    },
    h('p', { class: 'card-kind warn' }, t('budgetCard')),
    h('p', { class: 'budget-ask' }, t('budgetAsk', amounts(spentOnly, t), amounts(limit, t), more)),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, t('budgetApprove', more)),
      h('button', { type: 'button', class: 'danger', onclick: () => onStop() }, t('budgetStop')),
    ),
    errorLine(),
  );
}
