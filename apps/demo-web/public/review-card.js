// A hook's review (DESIGN §26): the card of a pending `review` interaction (payload `{ hook, point,
// subject, reason? }`) shows who asks (the hook and the point), why, and what is under review — a
// tool call's input, or the subject as a whole — as editable JSON. Approve sends it back (as `edit`
// when changed), Reject sends the rationale, which the model reads as the `denied` reason.

import { errorLine, showError } from './cards.js';
import { h } from './dom.js';

let next = 0;
const uid = (name) => `review-${name}-${++next}`;

/** What the card edits: a tool call's input at `beforeTool`, else the subject itself. */
const editable = ({ point, subject }) => (point === 'beforeTool' ? subject?.input : subject);

/** The card of a pending review; `onApprove({ rationale, edit? })` and `onReject({ rationale })`. */
export function reviewCard(interaction, t, { onApprove, onReject }) {
  const { hook, point, subject, reason } = interaction.payload;
  const original = JSON.stringify(editable({ point, subject }), null, 2) ?? 'null';
  const subjectId = uid('subject');
  const rationaleId = uid('rationale');
  const json = h('textarea', {
    id: subjectId,
    class: 'json',
    rows: Math.min(original.split('\n').length, 16),
    spellcheck: 'false',
    value: original,
  });
  const rationale = h('input', { id: rationaleId, type: 'text', class: 'rationale' });
  const approveButton = h('button', { type: 'submit', class: 'primary' }, t('approve'));
  json.addEventListener('input', () => {
    approveButton.textContent = json.value.trim() === original.trim() ? t('approve') : t('approveEdited');
  });
  const card = h(
    'form',
    {
      class: 'card review-card',
      'data-id': interaction.id,
      'aria-label': t('reviewCard'),
      onsubmit: (event) => {
        event.preventDefault();
        const decision = { rationale: rationale.value.trim() || undefined };
        if (json.value.trim() !== original.trim()) {
          try {
            decision.edit = JSON.parse(json.value);
          } catch {
            showError(card, t('invalidJson'));
            return;
          }
        }
        onApprove(decision);
      },
    },
    h('p', { class: 'card-kind warn' }, t('reviewCard')),
    h('p', { class: 'review-by' }, t('reviewBy', hook, t(`point_${point}`), interaction.toolName)),
    reason ? h('p', { class: 'reason' }, reason) : null,
    h('label', { class: 'field', for: subjectId }, t('underReview')),
    json,
    h('label', { class: 'field', for: rationaleId }, t('rationale')),
    rationale,
    h(
      'div',
      { class: 'actions' },
      approveButton,
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () => onReject({ rationale: rationale.value.trim() || undefined }),
        },
        t('reject'),
      ),
    ),
    errorLine(),
  );
  return card;
}
