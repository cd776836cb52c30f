/**
 * What the CLI asks a person, independent of how: answers to questions, a decision on an approval,
 * the next chat message. `ttyPrompter` reads keys on a terminal; `linePrompter` reads lines from a
 * pipe. Both render the same cards (see `render.ts`).
 */
import type { ApprovalPayload, Question, QuestionAnswer } from '@turnkit/core';
import { linePrompter } from './prompt-lines.js';
import { ttyPrompter } from './prompt-tty.js';
import type { Ui } from './ui.js';

/** The person stopped answering: end of input (EOF, Esc, Ctrl-D) or Ctrl-C. Nothing was sent. */
export interface Cancelled {
  cancelled: 'eof' | 'interrupt';
}

export type ApprovalDecision =
  | { decision: 'approve'; editedInput?: unknown; rationale?: string }
  | { decision: 'reject'; rationale?: string };

export interface Prompter {
  /** One answer per question, in question order, in the `{ selected, other?, note? }` form. */
  questions(questions: Question[]): Promise<QuestionAnswer[] | Cancelled>;
  approval(approval: ApprovalPayload): Promise<ApprovalDecision | Cancelled>;
  /** The next chat message; an empty string means the person is done. */
  message(): Promise<string | Cancelled>;
  close(): void;
}

export function isCancelled(value: unknown): value is Cancelled {
  return typeof value === 'object' && value !== null && 'cancelled' in value;
}

export function createPrompter(ui: Ui): Prompter {
  return ui.interactive ? ttyPrompter(ui) : linePrompter(ui);
}
