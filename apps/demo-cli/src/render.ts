/**
 * The cards people answer: a question card (header, numbered options with descriptions, `0. Other`)
 * and an approval card (tool, reason, input); `render-input.ts` draws a tool's form with the same
 * parts. The same function draws the static card of line mode and, given a {@link FormView}, the
 * live arrow-key form, so both modes look alike. A card whose interaction expires shows the time
 * left, counting down on a terminal.
 */
import type { ApprovalPayload, Question } from '@turnkit/core';
import { safeLine, safeText } from './sanitize.js';
import { AGENT_NAME } from './scenario/agent.js';
import { displayWidth, padEnd, truncate, wrap } from './text.js';
import type { Ui } from './ui.js';

/** What the arrow-key form shows: the row under the cursor, the chosen rows, the text typed in text rows. */
export interface FormView {
  cursor: number;
  chosen: ReadonlySet<number>;
  texts: ReadonlyMap<number, string>;
  error?: string;
}

/** Where a question sits among the questions of one interaction, and which agent asked it. */
export interface Position {
  index: number;
  total: number;
  /** Agent names from the top agent down to the one that asked; shown when a sub-agent asked. */
  agentPath?: readonly string[];
  /** When the interaction expires (epoch ms): the card shows the time left. */
  deadline?: number;
}

/** `4:59`, or `1:02:03` past an hour: the time left, rounded up to the second. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/** `Time left to answer: 4:59` (yellow in the last 30 seconds), or nothing without a deadline. */
export function countdownLines(ui: Ui, deadline: number | undefined, now = Date.now()): string[] {
  if (deadline === undefined) return [];
  const left = deadline - now;
  const line = ui.t('timeLeft', { time: formatCountdown(left) });
  return [left <= 30_000 ? ui.color.yellow(line) : ui.color.dim(line)];
}

/**
 * `Asked by lead › researcher`, when a sub-agent asked, or `Asked by lab-desk` when the run was
 * handed to another agent (DESIGN §27); nothing for the top agent.
 */
export function askerLines(
  ui: Ui,
  key: 'askedBy' | 'requestedBy',
  agentPath: readonly string[] | undefined,
): string[] {
  if (!agentPath || (agentPath.length < 2 && agentPath[0] === AGENT_NAME)) return [];
  const path = agentPath.map(safeLine).join(' › ');
  return [ui.color.dim(truncate(ui.t(key, { path }), ui.width - 4))];
}

/** A card: a rounded box with a title on the left of its top edge and `right` on the right. */
export function box(ui: Ui, title: string, right: string, body: string[]): string[] {
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
export function textRow(ui: Ui, label: string, text: string, active: boolean, width: number): string {
  const caret = active ? (ui.color.isColorSupported ? ui.color.inverse(' ') : '_') : '';
  const room = Math.max(4, width - displayWidth(label) - 2);
  // Under the cursor the end (where typing happens) stays visible; elsewhere the beginning.
  const typed = safeLine(text);
  let shown = active ? typed : truncate(typed, room);
  if (active) {
    while (displayWidth(shown) > room) shown = shown.slice(1);
    if (shown !== typed) shown = `…${shown.slice(1)}`;
  }
  return `${label}: ${active ? ui.color.cyan(shown) : shown}${caret}`;
}

function marker(multiSelect: boolean, on: boolean): string {
  if (multiSelect) return on ? '[x]' : '[ ]';
  return on ? '(•)' : '( )';
}

/** The row prefix of the live form: cursor and checkbox/radio; in line mode only an indent. */
export function prefix(ui: Ui, view: FormView | undefined, row: number, multiSelect: boolean): string {
  if (!view) return '  ';
  const pointer = view.cursor === row ? ui.color.cyan('❯') : ' ';
  return `${pointer} ${marker(multiSelect, view.chosen.has(row))} `;
}

/**
 * Rows of the live question form, by index: the options `0..n-1`, then the text row (Other, or
 * the answer of a free-text question), the note (questions with options only), Skip and Cancel.
 */
export interface QuestionRows {
  text: number;
  note: number | undefined;
  skip: number;
  cancel: number;
}

/** Where each row of the live form of `question` is. */
export function questionRows(question: Question): QuestionRows {
  const options = question.options.length;
  const note = options === 0 ? undefined : options + 1;
  const skip = (note ?? options) + 1;
  return { text: options, note, skip, cancel: skip + 1 };
}

/** A row of the live form that is not a choice: pointer, then `content`. */
export function plainRow(ui: Ui, view: FormView, row: number, content: string): string {
  return `${view.cursor === row ? ui.color.cyan('❯') : ' '} ${content}`;
}

/** The options and the Other and note rows of a question with options. */
function optionRows(ui: Ui, question: Question, rows: QuestionRows, view: FormView | undefined): string[] {
  const { color, t } = ui;
  const inner = ui.width - 4;
  const body: string[] = [];
  // Numbers are right-aligned, so labels line up past nine options too.
  const number = (value: number) => String(value).padStart(String(question.options.length).length);
  question.options.forEach((option, row) => {
    const head = `${prefix(ui, view, row, question.multiSelect)}${number(row + 1)}. `;
    const indent = ' '.repeat(displayWidth(head));
    const labelLines = wrap(safeLine(option.label), Math.max(8, inner - indent.length));
    labelLines.forEach((line, i) => {
      body.push((i === 0 ? head : indent) + (view?.cursor === row ? color.cyan(line) : line));
    });
    if (option.description !== '') {
      body.push(
        ...hanging(safeText(option.description), indent, indent, inner).map((line) => color.dim(line)),
      );
    }
  });
  const otherHead = `${prefix(ui, view, rows.text, question.multiSelect)}${number(0)}. `;
  if (!view) return [...body, `${otherHead}${t('other')}`];
  const typed = (row: number) => view.texts.get(row) ?? '';
  body.push(otherHead + textRow(ui, t('other'), typed(rows.text), view.cursor === rows.text, inner - 8));
  const note = rows.note!;
  const noteRow = textRow(ui, t('note'), typed(note), view.cursor === note, inner - 8);
  body.push(plainRow(ui, view, note, `${' '.repeat(displayWidth(otherHead) - 2)}${noteRow}`));
  return body;
}

/** Seed 003's context under the question, as its ask card shows it: the hint, then the references. */
function contextLines(ui: Ui, question: Question, inner: number): string[] {
  const { hint, refs } = question.context ?? {};
  const lines: string[] = [];
  if (hint) lines.push(...wrap(ui.t('contextHint', { hint: safeText(hint) }), inner));
  if (refs?.length) lines.push(...wrap(ui.t('contextRefs', { refs: refs.map(safeLine).join(', ') }), inner));
  return lines.map((line) => ui.color.dim(line));
}

/**
 * The question card. A question with options lists them, numbered, and `0. Other`; a free-text
 * question (no options) has only its text, and is answered on a text row (live form) or on the
 * line below (line mode). The live form ends with the Skip and Cancel rows.
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
  const freeText = question.options.length === 0;
  const rows = questionRows(question);
  const body: string[] = askerLines(ui, 'askedBy', position.agentPath);
  body.push(...wrap(safeText(question.question), inner).map((line) => color.bold(line)));
  body.push(...contextLines(ui, question, inner));
  body.push(color.dim(freeText ? t('typeAnswer') : question.multiSelect ? t('chooseMany') : t('chooseOne')));
  if (!freeText) body.push('', ...optionRows(ui, question, rows, view));
  if (view) {
    if (freeText) {
      const answer = textRow(
        ui,
        t('answer'),
        view.texts.get(rows.text) ?? '',
        view.cursor === rows.text,
        inner - 4,
      );
      body.push('', plainRow(ui, view, rows.text, answer));
    }
    const action = (row: number, symbol: string, label: string) =>
      plainRow(ui, view, row, `${symbol} ${view.cursor === row ? color.cyan(label) : label}`);
    body.push(action(rows.skip, '↷', t('skipRow')), action(rows.cancel, '✗', t('cancelRow')));
  }
  body.push(...countdownLines(ui, position.deadline));
  const right =
    position.total > 1 ? `${t('questionTitle')} ${position.index + 1}/${position.total}` : t('questionTitle');
  const lines = box(ui, safeLine(question.header), right, body);
  if (view) {
    const hint = freeText ? 'ttyHintText' : question.multiSelect ? 'ttyHintMulti' : 'ttyHintSingle';
    lines.push(color.dim(t(hint)));
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
export function renderApprovalCard(
  ui: Ui,
  approval: ApprovalPayload,
  options: { view?: FormView; agentPath?: readonly string[] } = {},
): string {
  const { view } = options;
  const { color, t } = ui;
  const inner = ui.width - 4;
  const labels = [t('tool'), t('reason'), t('input')];
  const column = Math.max(...labels.map(displayWidth)) + 2;
  const field = (label: string) => padEnd(label, column);
  const indent = ' '.repeat(column);
  const body: string[] = [
    ...askerLines(ui, 'requestedBy', options.agentPath),
    `${color.dim(field(t('tool')))}${color.bold(safeLine(approval.toolName))}`,
  ];
  if (approval.reason) {
    wrap(safeText(approval.reason), inner - column).forEach((line, i) => {
      body.push((i === 0 ? color.dim(field(t('reason'))) : indent) + line);
    });
  }
  formatInput(approval.input)
    .split('\n')
    .forEach((line, i) => {
      body.push(
        `${i === 0 ? color.dim(field(t('input'))) : indent}${truncate(safeLine(line), inner - column)}`,
      );
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
