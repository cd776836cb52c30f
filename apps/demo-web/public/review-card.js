// A hook's review (DESIGN §26): the card of a pending `review` interaction (payload `{ hook, point,
// subject, reason? }`) shows who asks (the hook and the point), why, and what is under review — a
// tool call's input, or the subject as a whole — as editable JSON. Approve sends it back (as `edit`
// when changed), Reject sends the rationale, which the model reads as the `denied` reason.

import { decisionCard } from './cards.js';
import { h } from './dom.js';

/** What the card edits: a tool call's input at `beforeTool`, else the subject itself. */
const editable = ({ point, subject }) => (point === 'beforeTool' ? subject?.input : subject);

/** The card of a pending review; `onApprove({ rationale, edit? })` and `onReject({ rationale })`. */
export function reviewCard(interaction, t, handlers) {
  const { hook, point, reason } = interaction.payload;
  const details = [
    h('p', { class: 'review-by' }, t('reviewBy', hook, t(`point_${point}`), interaction.toolName)),
    reason ? h('p', { class: 'reason' }, reason) : null,
  ];
  return decisionCard(
    interaction,
    t,
    {
      className: 'review-card',
      title: t('reviewCard'),
      details,
      value: editable(interaction.payload),
      valueLabel: t('underReview'),
      editKey: 'edit',
    },
    handlers,
  );
}
