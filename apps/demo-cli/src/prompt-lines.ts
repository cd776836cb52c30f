/**
 * Line input, for piped stdin (scripts, CI, other programs): `1`, `1,3`, `0` or `other` then the
 * text; an empty line takes the first (recommended) option; anything else re-prompts with a reason,
 * never a silent pick. A free-text question takes the line itself (never an empty one). On any
 * line of a question, `/skip` skips it and `/cancel` cancels the question. End of input stops
 * cleanly, sending nothing. A question with a deadline shows the time left on its card and stops
 * waiting for a line when it passes (a line typed later is kept for the next prompt).
 */
import { createInterface } from 'node:readline';
import type { ApprovalPayload, Question, QuestionAnswer } from '@turnkit/core';
import type { Translate } from './i18n.js';
import {
  type ApprovalDecision,
  isFreeText,
  isQuestionCancelled,
  isStopped,
  isTimedOut,
  type Prompter,
  type QuestionCancelled,
  type Stopped,
  type TimedOut,
} from './prompt.js';
import { lineInput } from './prompt-input.js';
import { type Position, renderApprovalCard, renderQuestionCard } from './render.js';
import { safeLine } from './sanitize.js';
import type { Ui } from './ui.js';

/** A prompt stops waiting this long after its deadline, so the interaction is expired by any clock. */
const EXPIRY_MARGIN_MS = 50;

/** Lines of a stream, one at a time; `null` once it has ended. Lines that arrive early are kept. */
export class LineReader {
  private readonly buffered: string[] = [];
  private readonly waiting: ((line: string | null) => void)[] = [];
  private ended = false;
  private readonly rl;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.rl.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.buffered.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiting.splice(0)) waiter(null);
    });
  }

  /** The next line; `null` once the stream ended; {@link TimedOut} when `deadline` passes first. */
  next(deadline?: number): Promise<string | null | TimedOut> {
    const line = this.buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = (next: string | null) => {
        clearTimeout(timer);
        resolve(next);
      };
      this.waiting.push(waiter);
      if (deadline === undefined) return;
      timer = setTimeout(
        () => {
          // No longer waiting: a line that comes later is kept for the next prompt.
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve({ timedOut: true });
        },
        Math.max(0, deadline - Date.now()) + EXPIRY_MARGIN_MS,
      );
    });
  }

  close(): void {
    this.rl.close();
  }
}

/** A parsed line: the chosen labels and whether free text follows, or why the line was refused. */
export type LineChoice =
  | { ok: true; selected: string[]; wantsOther: boolean }
  | { ok: false; message: string };

/**
 * Why a number is not a row. A label made of digits ("10") is still read as a row number, so the
 * message says which row that label is on, rather than leaving the person to guess.
 */
function notAnOption(question: Question, token: string, t: Translate): string {
  const row = question.options.findIndex((option) => option.label.trim() === token) + 1;
  const input = safeLine(token);
  if (row > 0) return t('numberIsLabel', { input, row });
  return t('notAnOption', { input, max: question.options.length });
}

/**
 * Reads one line of answer to `question`: row numbers (0 = Other, any number of digits), `other`,
 * an exact label, or empty. Numbers always pick rows, so with options labelled "2" and "1", `1`
 * is the first row; a label is matched only when the line is not made of numbers.
 */
export function parseLineChoice(question: Question, input: string, t: Translate): LineChoice {
  const text = input.trim();
  const { options } = question;
  if (text === '') return { ok: true, selected: [options[0]!.label], wantsOther: false };
  const tokens = text.split(/[\s,，、]+/).filter(Boolean);
  if (!tokens.every((token) => /^\d+$/.test(token))) {
    if (text.toLowerCase() === 'other') return { ok: true, selected: [], wantsOther: true };
    const byLabel = options.find((option) => option.label.toLowerCase() === text.toLowerCase());
    if (byLabel) return { ok: true, selected: [byLabel.label], wantsOther: false };
  }
  const chosen = new Set<number>();
  let wantsOther = false;
  for (const token of tokens) {
    const number = /^\d+$/.test(token) ? Number(token) : Number.NaN;
    if (number === 0) wantsOther = true;
    else if (number >= 1 && number <= options.length) chosen.add(number - 1);
    else return { ok: false, message: notAnOption(question, token, t) };
  }
  if (!question.multiSelect && chosen.size + (wantsOther ? 1 : 0) > 1)
    return { ok: false, message: t('singleOnly') };
  const selected = [...chosen].sort((a, b) => a - b).map((index) => options[index]!.label);
  return { ok: true, selected, wantsOther };
}

/** What `/skip` and `/cancel` answer, typed on any line of a question; undefined for other lines. */
export function lineCommand(line: string): { skipped: true } | QuestionCancelled | undefined {
  const word = line.trim().toLowerCase();
  if (word === '/skip') return { skipped: true };
  if (word === '/cancel') return { cancelledQuestion: true };
  return undefined;
}

const EOF: Stopped = { stopped: 'eof' };

export function linePrompter(ui: Ui): Prompter {
  const reader = new LineReader(ui.input);
  const { t, color } = ui;
  const echo = !ui.input.isTTY;

  /** Writes the prompt and reads a line; the line is echoed when the terminal did not show it. */
  async function ask(prompt: string, deadline?: number): Promise<string | null | TimedOut> {
    ui.out.write(prompt);
    const line = await reader.next(deadline);
    if (line === null || isTimedOut(line)) ui.print();
    else if (echo) ui.print(safeLine(line));
    return line;
  }

  /** A line with no deadline (approvals, messages): never {@link TimedOut}. */
  const askLine = (prompt: string) => ask(prompt) as Promise<string | null>;

  const refuse = (message: string) => ui.print(color.red(`✗ ${message}`));

  type LineAnswer = QuestionAnswer | QuestionCancelled | Stopped | TimedOut;

  /** Reads the answer of a free-text question: a line that is not empty. */
  async function askText(deadline: number | undefined): Promise<LineAnswer> {
    for (;;) {
      const line = await ask(t('customPrompt'), deadline);
      if (line === null) return EOF;
      if (isTimedOut(line)) return line;
      const command = lineCommand(line);
      if (command) return command;
      if (line.trim() !== '') return line.trim();
      refuse(t('emptyText'));
    }
  }

  async function askOne(question: Question, position: Position): Promise<LineAnswer> {
    const { deadline } = position;
    ui.print(renderQuestionCard(ui, question, position));
    ui.print(color.dim(t('lineCommands')));
    if (isFreeText(question)) return askText(deadline);
    for (;;) {
      const line = await ask(question.multiSelect ? t('hintMulti') : t('hintSingle'), deadline);
      if (line === null) return EOF;
      if (isTimedOut(line)) return line;
      const command = lineCommand(line);
      if (command) return command;
      const choice = parseLineChoice(question, line, t);
      if (!choice.ok) {
        refuse(choice.message);
        continue;
      }
      if (!choice.wantsOther) return { selected: choice.selected };
      for (;;) {
        const other = await ask(t('customPrompt'), deadline);
        if (other === null) return EOF;
        if (isTimedOut(other)) return other;
        const command = lineCommand(other);
        if (command) return command;
        if (other.trim() !== '') return { selected: choice.selected, other: other.trim() };
        refuse(t('emptyCustom'));
      }
    }
  }

  async function askJson(): Promise<unknown> {
    for (;;) {
      const line = await askLine(t('editPrompt'));
      if (line === null) return EOF;
      try {
        return { value: JSON.parse(line) as unknown };
      } catch (error) {
        refuse(t('invalidJson', { error: safeLine((error as Error).message) }));
      }
    }
  }

  return {
    async questions(questions, asked = {}) {
      ui.print(color.bold(t('asking')));
      const answers: QuestionAnswer[] = [];
      for (const [index, question] of questions.entries()) {
        const answer = await askOne(question, { index, total: questions.length, ...asked });
        if (isStopped(answer) || isQuestionCancelled(answer) || isTimedOut(answer)) return answer;
        answers.push(answer);
      }
      return answers;
    },

    async approval(approval: ApprovalPayload, agentPath): Promise<ApprovalDecision | Stopped> {
      ui.print(renderApprovalCard(ui, approval, agentPath ? { agentPath } : {}));
      for (;;) {
        const line = await askLine(t('approvalPrompt'));
        if (line === null) return EOF;
        const word = line.trim().toLowerCase();
        let edited: { value: unknown } | undefined;
        if (['e', 'edit'].includes(word)) {
          const json = await askJson();
          if (json === EOF) return EOF;
          edited = json as { value: unknown };
        } else if (!['a', 'approve', 'y', 'yes', 'r', 'reject', 'n', 'no'].includes(word)) {
          refuse(t('approvalInvalid'));
          continue;
        }
        const rationaleLine = await askLine(t('rationalePrompt'));
        if (rationaleLine === null) return EOF;
        const rationale = rationaleLine.trim() === '' ? {} : { rationale: rationaleLine.trim() };
        if (['r', 'reject', 'n', 'no'].includes(word)) return { decision: 'reject', ...rationale };
        return { decision: 'approve', ...(edited ? { editedInput: edited.value } : {}), ...rationale };
      }
    },

    input: (form, asked) => lineInput(ui, form, asked, ask),

    async message() {
      ui.print(color.dim(t('messageHint')));
      const line = await askLine(color.bold(t('messagePrompt')));
      return line === null ? EOF : line.trim();
    },

    close: () => reader.close(),
  };
}
