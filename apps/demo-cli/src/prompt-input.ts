/**
 * Filling in a tool's form (`ctx.ask({ input })`), one field at a time, in both modes: on a
 * terminal each field is an arrow-key form (choices, Yes/No, or a text row, then Cancel); from a
 * pipe each field is a line (a number for a choice, y/n, text, a number or JSON). `/cancel` or
 * the Cancel row cancels the form (the model is told, and goes on); a form with a deadline closes
 * when it passes. The value goes to core as it is, which checks it against the form's schema.
 */
import type { InputPayload } from '@turnkit/core';
import { type FormOutcome, type FormRow, runForm } from './form.js';
import { type FormField, formFields, formValue, parseFieldText, showValue } from './input-form.js';
import {
  type AskContext,
  isStopped,
  isTimedOut,
  type QuestionCancelled,
  type Stopped,
  type TimedOut,
} from './prompt.js';
import type { FormView, Position } from './render.js';
import { fieldRows, renderInputCard, textLabel } from './render-input.js';
import { safeLine } from './sanitize.js';
import type { Ui } from './ui.js';

/** What filling in a form ends with: the value, a cancelled form, a stop, or the deadline. */
export type InputOutcome = { value: unknown } | QuestionCancelled | Stopped | TimedOut;

/** Where the card of a field sits: its index among the form's fields, who asked, until when. */
type FieldPosition = Position & { toolName: string };

function positionOf(asked: AskContext & { toolName: string }, index: number, total: number): FieldPosition {
  return { index, total, ...asked };
}

/** The value of a field as its live form was submitted. */
function fieldValue(field: FormField, view: FormView, ui: Ui): unknown {
  const row = [...view.chosen][0] ?? 0;
  if (field.kind === 'enum') return field.choices[row];
  if (field.kind === 'boolean') return row === 0;
  const parsed = parseFieldText(field, view.texts.get(0) ?? '', ui.t);
  return parsed.ok ? parsed.value : undefined;
}

function askField(ui: Ui, form: InputPayload, field: FormField, position: FieldPosition) {
  const { t, color } = ui;
  const rows = fieldRows(field);
  const formRows: FormRow[] =
    rows.choices > 0
      ? Array.from({ length: rows.choices }, (_, i): FormRow => ({ kind: 'choice', shortcut: String(i + 1) }))
      : [{ kind: 'text' }];
  formRows.push({ kind: 'action', action: 'cancel' });
  const title = color.bold(safeLine(field.title));
  const summary = (outcome: FormOutcome | TimedOut | null): string => {
    if (outcome === null) return `${color.yellow('…')} ${title} › ${color.dim(t('unanswered'))}`;
    if (isTimedOut(outcome)) return `${color.yellow('⧗')} ${title} › ${color.dim(t('timedOut'))}`;
    if (!('view' in outcome)) return `${color.red('✗')} ${title} › ${color.dim(t('cancelled'))}`;
    const value = fieldValue(field, outcome.view, ui);
    const shown =
      field.kind === 'boolean' ? t(value ? 'yes' : 'no') : value === undefined ? '—' : showValue(value);
    return `${color.green('✔')} ${title} › ${color.cyan(shown)}`;
  };
  return runForm(ui, {
    rows: formRows,
    multiSelect: false,
    chosen: rows.choices > 0 ? [0] : [],
    render: (view) => renderInputCard(ui, form, field, position, view),
    check: (view) => {
      if (rows.choices > 0) return undefined;
      const parsed = parseFieldText(field, view.texts.get(0) ?? '', t);
      return parsed.ok ? undefined : parsed.message;
    },
    summary,
    ...(position.deadline === undefined ? {} : { deadline: position.deadline }),
  });
}

/** Fills in `form` with arrow-key forms, one per field. */
export async function ttyInput(
  ui: Ui,
  form: InputPayload,
  asked: AskContext & { toolName: string },
): Promise<InputOutcome> {
  ui.print(ui.color.bold(ui.t('asking')));
  const fields = formFields(form.schema, ui.t('value'));
  const values: unknown[] = [];
  for (const [index, field] of fields.entries()) {
    const result = await askField(ui, form, field, positionOf(asked, index, fields.length));
    if (isStopped(result) || isTimedOut(result)) return result;
    if (!('view' in result)) return { cancelledQuestion: true };
    values.push(fieldValue(field, result.view, ui));
  }
  return { value: formValue(fields, values) };
}

/** Reads one line after a prompt: the line, `null` at end of input, or the deadline. */
export type AskLine = (prompt: string, deadline?: number) => Promise<string | null | TimedOut>;

/** The prompt of a field in line mode. */
function linePrompt(ui: Ui, field: FormField): string {
  const { t } = ui;
  const optional = field.required || field.kind === 'enum' ? '' : t('hintOptional');
  if (field.kind === 'enum') return t('hintEnum', { max: field.choices.length });
  if (field.kind === 'boolean') return `${t('hintBoolean', { field: safeLine(field.title) })}${optional}`;
  return `${t('hintField', { field: textLabel(field) })}${optional}`;
}

/** Fills in `form` from lines: one card and one line (asked again until it parses) per field. */
export async function lineInput(
  ui: Ui,
  form: InputPayload,
  asked: AskContext & { toolName: string },
  ask: AskLine,
): Promise<InputOutcome> {
  const { t, color } = ui;
  ui.print(color.bold(t('asking')));
  const fields = formFields(form.schema, t('value'));
  const values: unknown[] = [];
  for (const [index, field] of fields.entries()) {
    ui.print(renderInputCard(ui, form, field, positionOf(asked, index, fields.length)));
    ui.print(color.dim(t('formCommands')));
    for (;;) {
      const line = await ask(linePrompt(ui, field), asked.deadline);
      if (line === null) return { stopped: 'eof' };
      if (isTimedOut(line)) return line;
      if (line.trim().toLowerCase() === '/cancel') return { cancelledQuestion: true };
      const parsed = parseFieldText(field, line, t);
      if (parsed.ok) {
        values.push(parsed.value);
        break;
      }
      ui.print(color.red(`✗ ${parsed.message}`));
    }
  }
  return { value: formValue(fields, values) };
}
