// A tool's form as a card (`ctx.ask({ input })`, kind 'input'): the tool, its message, one control
// per field of its JSON Schema (radio buttons for an enum, a checkbox for a boolean, a text field
// for a string or a number, a JSON text area for anything else), then Send or Dismiss. What is
// typed is checked here only as far as the page can (a required field, a number, JSON); core checks
// the value against the schema and answers a problem the card shows.

import { askerLine, errorLine, showError } from './cards.js';
import { h, uid } from './dom.js';
import { formFields, formValue, parseText, showChoice } from './schema-form.js';

function enumControl(formField, index) {
  const name = uid('field');
  return h(
    'div',
    { class: 'options' },
    formField.choices.map((value, row) => {
      const id = uid('opt');
      return h(
        'div',
        { class: 'option' },
        h('input', { type: 'radio', id, name, value: String(row), 'data-field': index, checked: row === 0 }),
        h('label', { for: id }, h('span', { class: 'label' }, showChoice(value))),
      );
    }),
  );
}

function fieldControl(formField, index, t) {
  const id = uid('field');
  const title = formField.kind === 'json' ? t('fieldJson', formField.title) : formField.title;
  const legend = [
    h('span', { class: 'chip' }, title),
    formField.required ? null : h('span', { class: 'hint' }, t('optional')),
  ];
  const description = formField.description ? h('p', { class: 'hint' }, formField.description) : null;
  if (formField.kind === 'enum') {
    const legendId = uid('legend');
    return h(
      'fieldset',
      { class: 'question', 'data-form-field': index, 'aria-labelledby': legendId },
      h('legend', { id: legendId }, legend),
      description,
      enumControl(formField, index),
    );
  }
  if (formField.kind === 'boolean') {
    return h(
      'div',
      { class: 'option', 'data-form-field': index },
      h('input', { type: 'checkbox', id, 'data-field': index }),
      h('label', { for: id }, h('span', { class: 'label' }, title), description),
    );
  }
  const control =
    formField.kind === 'json'
      ? h('textarea', { id, class: 'json', rows: 3, spellcheck: 'false', 'data-field': index })
      : h('input', {
          id,
          type: 'text',
          inputmode: formField.kind === 'string' ? undefined : 'decimal',
          'data-field': index,
        });
  return h(
    'div',
    { class: 'form-field', 'data-form-field': index },
    h('label', { class: 'field', for: id }, legend),
    description,
    control,
  );
}

/** The value of every field, or the first problem (its message for the card). */
function collect(card, fields, t) {
  const values = [];
  for (const [index, formField] of fields.entries()) {
    const controls = card.querySelectorAll(`[data-field="${index}"]`);
    if (formField.kind === 'enum') {
      const checked = [...controls].find((control) => control.checked);
      values.push(checked ? formField.choices[Number(checked.value)] : undefined);
      continue;
    }
    if (formField.kind === 'boolean') {
      values.push(controls[0].checked);
      continue;
    }
    const parsed = parseText(formField, controls[0].value);
    if (!parsed.ok) {
      const key = { required: 'fieldRequired', number: 'fieldNumber', json: 'fieldJsonInvalid' }[
        parsed.problem
      ];
      return { problem: t(key, formField.title), control: controls[0] };
    }
    values.push(parsed.value);
  }
  return { value: formValue(fields, values) };
}

/** A form card; `onSubmit(value)` and `onDismiss()` return promises. */
export function inputCard(interaction, t, { onSubmit, onDismiss }) {
  const { message, schema } = interaction.payload;
  const fields = formFields(schema, t('value'));
  const card = h(
    'form',
    {
      class: 'card input-card',
      'data-id': interaction.id,
      'aria-label': t('inputCard'),
      onsubmit: (event) => {
        event.preventDefault();
        const result = collect(card, fields, t);
        if (result.problem) {
          showError(card, result.problem);
          result.control.focus();
          return;
        }
        showError(card, '');
        onSubmit(result.value);
      },
      oninput: () => showError(card, ''),
    },
    h('p', { class: 'card-kind' }, t('inputCard')),
    askerLine(interaction, t, 'requestedBy'),
    h('p', { class: 'tool-name' }, h('code', {}, interaction.toolName)),
    h('p', { class: 'message' }, message),
    fields.map((formField, index) => fieldControl(formField, index, t)),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, t('submitForm')),
      h('button', { type: 'button', class: 'ghost', onclick: () => onDismiss() }, t('dismiss')),
    ),
    errorLine(),
  );
  return card;
}
