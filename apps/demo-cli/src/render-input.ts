/**
 * The card of a tool's form (`ctx.ask({ input })`), one field per card as questions are one per
 * card: the tool's message, the field (its title, description, and its choices, Yes/No, or a
 * text row), a Cancel row on a terminal, and the time left when the form expires. Drawn static in
 * line mode and, given a {@link FormView}, as the live arrow-key form.
 *
 * ```
 * ╭─ record_thaw ──────────────────────────────────── Input needed ─╮
 * │ 2 boxes hold HEK293T. Which box should the vial come from?      │
 * │                                                                  │
 * │ Box                                                              │
 * │   1. Box 2 · D1, D2, D3                                          │
 * │   2. Box 6 · A1, A2                                              │
 * ╰──────────────────────────────────────────────────────────────────╯
 * ```
 */
import type { InputPayload } from '@turnkit/core';
import { type FormField, showValue } from './input-form.js';
import {
  askerLines,
  box,
  countdownLines,
  type FormView,
  type Position,
  plainRow,
  prefix,
  textRow,
} from './render.js';
import { safeLine, safeText } from './sanitize.js';
import { wrap } from './text.js';
import type { Ui } from './ui.js';

/** Rows of the live form of one field: its choices (or one text row), then Cancel. */
export interface FieldRows {
  /** Choice rows (an enum's values, or Yes and No); 0 for a field typed on a text row. */
  choices: number;
  cancel: number;
}

/** Where each row of the live form of `field` is. */
export function fieldRows(field: FormField): FieldRows {
  const choices = field.kind === 'enum' ? field.choices.length : field.kind === 'boolean' ? 2 : 0;
  return { choices, cancel: Math.max(choices, 1) };
}

/** The labels of a field's choice rows: its values, or Yes and No. */
export function choiceLabels(ui: Ui, field: FormField): string[] {
  if (field.kind === 'boolean') return [ui.t('yes'), ui.t('no')];
  return field.choices.map(showValue);
}

/** The label of a field typed on a text row: its title, and `(JSON)` when JSON is expected. */
export function textLabel(field: FormField): string {
  const title = safeLine(field.title);
  return field.kind === 'json' ? `${title} (JSON)` : title;
}

function fieldLines(ui: Ui, field: FormField, view: FormView | undefined): string[] {
  const { color, t } = ui;
  const inner = ui.width - 4;
  const title = `${color.bold(safeLine(field.title))}${field.required ? '' : ` ${color.dim(t('optional'))}`}`;
  const lines = [title];
  if (field.description !== '')
    lines.push(...wrap(safeText(field.description), inner).map((line) => color.dim(line)));
  const rows = fieldRows(field);
  if (rows.choices > 0) {
    choiceLabels(ui, field).forEach((label, row) => {
      const head = `${prefix(ui, view, row, false)}${row + 1}. `;
      lines.push(`${head}${view?.cursor === row ? color.cyan(safeLine(label)) : safeLine(label)}`);
    });
  } else if (view) {
    const typed = view.texts.get(0) ?? '';
    lines.push(plainRow(ui, view, 0, textRow(ui, textLabel(field), typed, view.cursor === 0, inner - 4)));
  }
  if (view) {
    const label = t('cancelFormRow');
    lines.push(
      plainRow(ui, view, rows.cancel, `✗ ${view.cursor === rows.cancel ? color.cyan(label) : label}`),
    );
  }
  return lines;
}

/** The card of field `position.index` of a form asked by `toolName`. */
export function renderInputCard(
  ui: Ui,
  form: InputPayload,
  field: FormField,
  position: Position & { toolName: string },
  view?: FormView,
): string {
  const { color, t } = ui;
  const inner = ui.width - 4;
  const body = [
    ...askerLines(ui, 'requestedBy', position.agentPath),
    ...wrap(safeText(form.message), inner).map((line) => color.bold(line)),
    '',
    ...fieldLines(ui, field, view),
    ...countdownLines(ui, position.deadline),
  ];
  const right =
    position.total > 1
      ? `${t('formTitle')} · ${t('formField', { index: position.index + 1, total: position.total })}`
      : t('formTitle');
  const lines = box(ui, safeLine(position.toolName), right, body);
  if (view) {
    lines.push(color.dim(t('ttyHintForm')));
    if (view.error) lines.push(color.red(`✗ ${view.error}`));
  }
  return lines.join('\n');
}
