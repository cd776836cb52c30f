/**
 * Line input, for piped stdin (scripts, CI, other programs): `1`, `1,3`, `0` or `other` then the
 * text; an empty line takes the first (recommended) option; anything else re-prompts with a reason,
 * never a silent pick. End of input cancels cleanly.
 */
import { createInterface } from 'node:readline';
import type { ApprovalPayload, Question, QuestionAnswer } from '@turnkit/core';
import type { Translate } from './i18n.js';
import { type ApprovalDecision, type Cancelled, isCancelled, type Prompter } from './prompter.js';
import { renderApprovalCard, renderQuestionCard } from './render.js';
import type { Ui } from './ui.js';

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

  next(): Promise<string | null> {
    const line = this.buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): void {
    this.rl.close();
  }
}

/** A parsed line: the chosen labels and whether free text follows, or why the line was refused. */
export type LineChoice =
  | { ok: true; selected: string[]; wantsOther: boolean }
  | { ok: false; message: string };

/** Reads one line of answer to `question`: numbers (0 = Other), `other`, an exact label, or empty. */
export function parseLineChoice(question: Question, input: string, t: Translate): LineChoice {
  const text = input.trim();
  const { options } = question;
  if (text === '') return { ok: true, selected: [options[0]!.label], wantsOther: false };
  if (text.toLowerCase() === 'other') return { ok: true, selected: [], wantsOther: true };
  const byLabel = options.find((option) => option.label.toLowerCase() === text.toLowerCase());
  if (byLabel) return { ok: true, selected: [byLabel.label], wantsOther: false };
  const chosen = new Set<number>();
  let wantsOther = false;
  for (const token of text.split(/[\s,，、]+/).filter(Boolean)) {
    const number = /^\d+$/.test(token) ? Number(token) : Number.NaN;
    if (number === 0) wantsOther = true;
    else if (number >= 1 && number <= options.length) chosen.add(number - 1);
    else return { ok: false, message: t('notAnOption', { input: token, max: options.length }) };
  }
  if (!question.multiSelect && chosen.size + (wantsOther ? 1 : 0) > 1)
    return { ok: false, message: t('singleOnly') };
  const selected = [...chosen].sort((a, b) => a - b).map((index) => options[index]!.label);
  return { ok: true, selected, wantsOther };
}

const EOF: Cancelled = { cancelled: 'eof' };

export function linePrompter(ui: Ui): Prompter {
  const reader = new LineReader(ui.input);
  const { t, color } = ui;
  const echo = !ui.input.isTTY;

  /** Writes the prompt and reads a line; the line is echoed when the terminal did not show it. */
  async function ask(prompt: string): Promise<string | null> {
    ui.out.write(prompt);
    const line = await reader.next();
    if (line === null) ui.print();
    else if (echo) ui.print(line);
    return line;
  }

  const refuse = (message: string) => ui.print(color.red(`✗ ${message}`));

  async function askOne(
    question: Question,
    index: number,
    total: number,
  ): Promise<QuestionAnswer | Cancelled> {
    ui.print(renderQuestionCard(ui, question, { index, total }));
    for (;;) {
      const line = await ask(question.multiSelect ? t('hintMulti') : t('hintSingle'));
      if (line === null) return EOF;
      const choice = parseLineChoice(question, line, t);
      if (!choice.ok) {
        refuse(choice.message);
        continue;
      }
      if (!choice.wantsOther) return { selected: choice.selected };
      for (;;) {
        const other = await ask(t('customPrompt'));
        if (other === null) return EOF;
        if (other.trim() !== '') return { selected: choice.selected, other: other.trim() };
        refuse(t('emptyCustom'));
      }
    }
  }

  async function askJson(): Promise<unknown> {
    for (;;) {
      const line = await ask(t('editPrompt'));
      if (line === null) return EOF;
      try {
        return { value: JSON.parse(line) as unknown };
      } catch (error) {
        refuse(t('invalidJson', { error: (error as Error).message }));
      }
    }
  }

  return {
    async questions(questions) {
      ui.print(color.bold(t('asking')));
      const answers: QuestionAnswer[] = [];
      for (const [index, question] of questions.entries()) {
        const answer = await askOne(question, index, questions.length);
        if (isCancelled(answer)) return answer;
        answers.push(answer);
      }
      return answers;
    },

    async approval(approval: ApprovalPayload): Promise<ApprovalDecision | Cancelled> {
      ui.print(renderApprovalCard(ui, approval));
      for (;;) {
        const line = await ask(t('approvalPrompt'));
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
        const rationaleLine = await ask(t('rationalePrompt'));
        if (rationaleLine === null) return EOF;
        const rationale = rationaleLine.trim() === '' ? {} : { rationale: rationaleLine.trim() };
        if (['r', 'reject', 'n', 'no'].includes(word)) return { decision: 'reject', ...rationale };
        return { decision: 'approve', ...(edited ? { editedInput: edited.value } : {}), ...rationale };
      }
    },

    async message() {
      ui.print(color.dim(t('messageHint')));
      const line = await ask(color.bold(t('messagePrompt')));
      return line === null ? EOF : line.trim();
    },

    close: () => reader.close(),
  };
}
