/**
 * The cards people answer: a question card (header, numbered options with descriptions, `0. Other`)
 * and an approval card (tool, reason, input). The same function draws the static card of line mode
 * and, given a {@link FormView}, the live arrow-key form, so both modes look alike.
 */
import type { ApprovalPayload, Question } from '@turnkit/core';
import { displayWidth, padEnd, truncate, wrap } from './text.js';
import type { Ui } from './ui.js';

/** What the arrow-key form shows: the row under the cursor, the chosen rows, the text typed in text rows. */
export interface FormView {
  cursor: number;
  chosen: ReadonlySet<number>;
  texts: ReadonlyMap<number, string>;
  error?: string;
}

/** Where a question sits among the questions of one interaction. */
export interface Position {
  index: number;
  total: number;
}

function box(ui: Ui, title: string, right: string, body: string[]): string[] {
  const { color } = ui;
  const rightPart = right === '' ? '' : ` ${right} `;
  const room = ui.width - 6 - displayWidth(rightPart);
  const shownTitle = truncate(title, Math.max(1, room - 1));
  const fill = '─'.repeat(Math.max(1, room - displayWidth(shownTitle)));
  const top = `╭─ ${color.bold(color.cyan(shownTitle))} ${fill}${color.dim(rightPart)}─╮`;
  const inner = ui.width - 4;
  const lines = body.map((line) => `│ ${padEnd(line, inner)} │`);
  return [top, ...lines, `╰${'─'.repeat(ui.width - 2)}╯`];
}

/** `lines` of `text` wrapped to `width` columns, the first after `first`, the rest after `rest`. */
function hanging(text: string, first: string, rest: string, width: number): string[] {
  const available = Math.max(8, width - displayWidth(first));
  return wrap(text, available).map((line, index) => (index === 0 ? first : rest) + line);
}

/** A text row: its label, the typed text (its tail, when too long) and, under the cursor, a caret. */
function textRow(ui: Ui, label: string, text: string, active: boolean, width: number): string {
  const caret = active ? (ui.color.isColorSupported ? ui.color.inverse(' ') : '_') : '';
  const room = Math.max(4, width - displayWidth(label) - 2);
  // Under the cursor the end (where typing happens) stays visible; elsewhere the beginning.
  let shown = active ? text : truncate(text, room);
  if (active) {
    while (displayWidth(shown) > room) shown = shown.slice(1);
    if (shown !== text) shown = `…${shown.slice(1)}`;
  }
  return `${label}: ${active ? ui.color.cyan(shown) : shown}${caret}`;
}

function marker(multiSelect: boolean, on: boolean): string {
  if (multiSelect) return on ? '[x]' : '[ ]';
  return on ? '(•)' : '( )';
}

/** The row prefix of the live form: cursor and checkbox/radio; in line mode only an indent. */
function prefix(ui: Ui, view: FormView | undefined, row: number, multiSelect: boolean): string {
  if (!view) return '  ';
  const pointer = view.cursor === row ? ui.color.cyan('❯') : ' ';
  return `${pointer} ${marker(multiSelect, view.chosen.has(row))} `;
}

/**
 * The question card. Rows of the live form: options `0..n-1`, Other `n`, the note `n+1`.
 *
 * ```
 * ╭─ Cell line ─────────────────────── Agent Question 1/2 ─╮
 * │ Which K562 line should I thaw?                         │
 * │  1. K562 (Recommended)                                 │
 * │     Parental line · 4 vials · box 3                    │
 * │  0. Other (custom input)                               │
 * ╰────────────────────────────────────────────────────────╯
 * ```
 */
export function renderQuestionCard(ui: Ui, question: Question, position: Position, view?: FormView): string {
  const { color, t } = ui;
  const inner = ui.width - 4;
  const body: string[] = [];
  body.push(...wrap(question.question, inner).map((line) => color.bold(line)));
  body.push(color.dim(question.multiSelect ? t('chooseMany') : t('chooseOne')));
  body.push('');
  question.options.forEach((option, row) => {
    const head = `${prefix(ui, view, row, question.multiSelect)}${row + 1}. `;
    const indent = ' '.repeat(displayWidth(head));
    const labelLines = wrap(option.label, Math.max(8, inner - indent.length));
    labelLines.forEach((line, i) => {
      body.push((i === 0 ? head : indent) + (view?.cursor === row ? color.cyan(line) : line));
    });
    if (option.description !== '') {
      body.push(...hanging(option.description, indent, indent, inner).map((line) => color.dim(line)));
    }
  });
  const otherRow = question.options.length;
  const otherHead = `${prefix(ui, view, otherRow, question.multiSelect)}0. `;
  if (!view) {
    body.push(`${otherHead}${t('other')}`);
  } else {
    const other = textRow(
      ui,
      t('other'),
      view.texts.get(otherRow) ?? '',
      view.cursor === otherRow,
      inner - 8,
    );
    body.push(otherHead + other);
    const noteRow = otherRow + 1;
    const notePointer = view.cursor === noteRow ? color.cyan('❯') : ' ';
    const note = textRow(ui, t('note'), view.texts.get(noteRow) ?? '', view.cursor === noteRow, inner - 8);
    body.push(`${notePointer}        ${note}`);
  }
  const right =
    position.total > 1 ? `${t('questionTitle')} ${position.index + 1}/${position.total}` : t('questionTitle');
  const lines = box(ui, question.header, right, body);
  if (view) {
    lines.push(color.dim(question.multiSelect ? t('ttyHintMulti') : t('ttyHintSingle')));
    if (view.error) lines.push(color.red(`✗ ${view.error}`));
  }
  return lines.join('\n');
}

/** Pretty JSON of a tool input, for the approval card and the edit row. */
export function formatInput(input: unknown): string {
  return JSON.stringify(input, null, 2) ?? 'null';
}

/**
 * The approval card: tool, reason and input. Rows of the live form: Approve `0`, Reject `1`,
 * Edit input `2` (a text row holding JSON), Rationale `3`.
 */
export function renderApprovalCard(ui: Ui, approval: ApprovalPayload, view?: FormView): string {
  const { color, t } = ui;
  const inner = ui.width - 4;
  const labels = [t('tool'), t('reason'), t('input')];
  const column = Math.max(...labels.map(displayWidth)) + 2;
  const field = (label: string) => padEnd(label, column);
  const indent = ' '.repeat(column);
  const body: string[] = [`${color.dim(field(t('tool')))}${color.bold(approval.toolName)}`];
  if (approval.reason) {
    wrap(approval.reason, inner - column).forEach((line, i) => {
      body.push((i === 0 ? color.dim(field(t('reason'))) : indent) + line);
    });
  }
  formatInput(approval.input)
    .split('\n')
    .forEach((line, i) => {
      body.push(`${i === 0 ? color.dim(field(t('input'))) : indent}${truncate(line, inner - column)}`);
    });
  if (view) {
    body.push('');
    [t('approve'), t('reject')].forEach((label, row) => {
      body.push(`${prefix(ui, view, row, false)}${view.cursor === row ? color.cyan(label) : label}`);
    });
    body.push(
      prefix(ui, view, 2, false) +
        textRow(ui, t('edit'), view.texts.get(2) ?? '', view.cursor === 2, inner - 6),
    );
    const pointer = view.cursor === 3 ? color.cyan('❯') : ' ';
    body.push(
      `${pointer}     ${textRow(ui, t('rationale'), view.texts.get(3) ?? '', view.cursor === 3, inner - 6)}`,
    );
  }
  const lines = box(ui, t('approvalTitle'), '', body);
  if (view) {
    // On the rationale row enter submits the decision chosen before; say which, so nobody approves by accident.
    const decisions = [t('approve'), t('reject'), t('edit')];
    const row = view.cursor < decisions.length ? view.cursor : ([...view.chosen][0] ?? 0);
    lines.push(color.dim(t('ttyHintApproval', { decision: color.bold(decisions[row] ?? t('approve')) })));
    if (view.error) lines.push(color.red(`✗ ${view.error}`));
  }
  return lines.join('\n');
}
