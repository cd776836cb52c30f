// Pending interactions as cards: a question card (radio buttons or checkboxes with descriptions,
// an Other field and a note per question; a text field alone for a question without options) and
// an approval card (tool, reason, editable input, rationale, approve or reject); a tool's form is
// drawn by form-card.js with the same parts. A card asked by a sub-agent names it ("Asked by
// ln2-web › storage").

import { h, uid } from './dom.js';

/** The line at the bottom of a card where a problem is shown (hidden until then). */
export function errorLine() {
  return h('p', { class: 'error', role: 'alert', hidden: true });
}

/** Shows a problem (its detail and issues) at the bottom of a card. */
export function showError(card, message) {
  const line = card.querySelector('.error');
  line.textContent = message;
  line.hidden = !message;
}

/** "Asked by lead › storage" when a sub-agent asked; nothing for the top agent. */
export function askerLine(interaction, t, key) {
  const path = interaction.agentPath ?? [];
  return path.length > 1 ? h('p', { class: 'asker' }, t(key, path.join(' › '))) : null;
}

/** A free-text question (no options): its text and one field for the answer, no Other, no note. */
function freeTextFields(question, t) {
  const legendId = uid('legend');
  return h(
    'fieldset',
    { class: 'question', 'data-question': question.id, 'data-free-text': true, 'aria-labelledby': legendId },
    h(
      'legend',
      { id: legendId },
      h('span', { class: 'chip' }, question.header),
      h('span', { class: 'qtext' }, question.question),
    ),
    h('p', { class: 'hint' }, t('typeAnswer')),
    h('textarea', { class: 'answer-text', rows: 2, 'aria-label': t('answerLabel', question.header) }),
  );
}

function questionFields(question, t) {
  if (question.options.length === 0) return freeTextFields(question, t);
  const name = uid(`q-${question.id}`);
  const type = question.multiSelect ? 'checkbox' : 'radio';
  const legendId = uid('legend');
  const options = question.options.map((option) => {
    const id = uid('opt');
    return h(
      'div',
      { class: 'option' },
      h('input', { type, id, name, value: option.label, 'data-label': option.label }),
      h(
        'label',
        { for: id },
        h('span', { class: 'label' }, option.label),
        option.description ? h('span', { class: 'desc' }, option.description) : null,
      ),
    );
  });
  const otherId = uid('opt');
  const otherBox = h('input', { type, id: otherId, name, value: '', 'data-other': true });
  const otherText = h('input', {
    type: 'text',
    class: 'other-text',
    placeholder: t('otherPlaceholder'),
    'aria-label': t('otherLabel', question.header),
    oninput: (event) => {
      otherBox.checked = event.target.value.trim() !== '';
    },
  });
  const noteId = uid('note');
  return h(
    'fieldset',
    { class: 'question', 'data-question': question.id, 'aria-labelledby': legendId },
    h(
      'legend',
      { id: legendId },
      h('span', { class: 'chip' }, question.header),
      h('span', { class: 'qtext' }, question.question),
    ),
    h('p', { class: 'hint' }, t(question.multiSelect ? 'chooseMany' : 'chooseOne')),
    h(
      'div',
      { class: 'options' },
      options,
      h(
        'div',
        { class: 'option other' },
        otherBox,
        h('label', { for: otherId }, h('span', { class: 'label' }, t('other'))),
        otherText,
      ),
    ),
    h('label', { class: 'field', for: noteId }, t('note')),
    h('textarea', { id: noteId, class: 'note-text', rows: 1 }),
  );
}

/** The answers of a question card, keyed by question id: a free-text question's is its text. */
function collectAnswers(card) {
  const answers = {};
  for (const fieldset of card.querySelectorAll('fieldset.question')) {
    if ('freeText' in fieldset.dataset) {
      answers[fieldset.dataset.question] = fieldset.querySelector('.answer-text').value.trim();
      continue;
    }
    const selected = [...fieldset.querySelectorAll('input[data-label]:checked')].map(
      (box) => box.dataset.label,
    );
    const otherChecked = fieldset.querySelector('input[data-other]').checked;
    const other = fieldset.querySelector('.other-text').value.trim();
    const note = fieldset.querySelector('.note-text').value.trim();
    answers[fieldset.dataset.question] = {
      selected,
      ...(otherChecked && other ? { other } : {}),
      ...(note ? { note } : {}),
    };
  }
  return answers;
}

/** A question card; `onAnswer(answers)` and `onDismiss()` return promises. */
export function questionCard(interaction, t, { onAnswer, onDismiss }) {
  const card = h(
    'form',
    {
      class: 'card question-card',
      'data-id': interaction.id,
      'aria-label': t('questionCard'),
      onsubmit: (event) => {
        event.preventDefault();
        // An empty typed answer is refused before anything is sent: it asks again.
        const empty = [...card.querySelectorAll('.answer-text')].find((field) => field.value.trim() === '');
        if (empty) {
          showError(card, t('emptyAnswer', empty.closest('fieldset').querySelector('.chip').textContent));
          empty.focus();
          return;
        }
        showError(card, '');
        onAnswer(collectAnswers(card));
      },
      // Typing is correcting: the last problem shown goes away.
      oninput: () => showError(card, ''),
    },
    h('p', { class: 'card-kind' }, t('questionCard')),
    askerLine(interaction, t, 'askedBy'),
    interaction.payload.questions.map((question) => questionFields(question, t)),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, t('submit')),
      h('button', { type: 'button', class: 'ghost', onclick: () => onDismiss() }, t('dismiss')),
    ),
    errorLine(),
  );
  return card;
}

/**
 * A card that decides something shown as editable JSON: an approval (the tool's input) or a hook's
 * review (what is under review). `onApprove({ rationale, [editKey]? })` — the edited value only when
 * it was changed — and `onReject({ rationale })`.
 */
export function decisionCard(
  interaction,
  t,
  { className, title, details, value, valueLabel, editKey },
  { onApprove, onReject },
) {
  const original = JSON.stringify(value, null, 2) ?? 'null';
  const inputId = uid('input');
  const rationaleId = uid('rationale');
  const json = h('textarea', {
    id: inputId,
    class: 'json',
    rows: original.split('\n').length,
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
      class: `card ${className}`,
      'data-id': interaction.id,
      'aria-label': title,
      onsubmit: (event) => {
        event.preventDefault();
        const decision = { rationale: rationale.value.trim() || undefined };
        if (json.value.trim() !== original.trim()) {
          try {
            decision[editKey] = JSON.parse(json.value);
          } catch {
            showError(card, t('invalidJson'));
            return;
          }
        }
        onApprove(decision);
      },
    },
    h('p', { class: 'card-kind warn' }, title),
    ...details,
    h('label', { class: 'field', for: inputId }, valueLabel),
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

/** An approval card; `onApprove({ rationale, editedInput? })` and `onReject({ rationale })`. */
export function approvalCard(interaction, t, handlers) {
  const { toolName, input, reason } = interaction.payload;
  const details = [
    askerLine(interaction, t, 'requestedBy'),
    h('p', { class: 'tool-name' }, h('code', {}, toolName)),
    reason ? h('p', { class: 'reason' }, reason) : null,
  ];
  return decisionCard(
    interaction,
    t,
    {
      className: 'approval-card',
      title: t('approvalCard'),
      details,
      value: input,
      valueLabel: t('input'),
      editKey: 'editedInput',
    },
    handlers,
  );
}

/** Disables or enables every control of a card while its request is in flight. */
export function setBusy(card, busy) {
  for (const control of card.querySelectorAll('input, textarea, button')) control.disabled = busy;
  card.setAttribute('aria-busy', String(busy));
}
