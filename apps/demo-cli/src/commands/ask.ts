/**
 * `turnkit-demo ask '<json>'`: AskUserQuestion as a shell command, so an agent with only a shell
 * tool can ask the human. Same validation and limits as the tool (core's parser), same cards as a
 * run (drawn on stderr), and the same result text the model would get, on stdout.
 * Exit codes: 0 answered (skipped questions included), 1 bad or missing JSON, 2 cancelled
 * (`/cancel`, the Cancel row, Ctrl-C) or end of input.
 */
import {
  formatAnswersResult,
  normalizeAnswers,
  parseQuestionInput,
  resolveQuestionLimits,
  toolErrorResult,
} from '@turnkit/core';
import { ASK_USAGE } from '../help.js';
import { onInterrupt } from '../interrupt.js';
import { isQuestionCancelled, isStopped, type Prompter, type Stopped } from '../prompt.js';

export const ASK_ANSWERED = 0;
export const ASK_INVALID = 1;
export const ASK_CANCELLED = 2;

/** How the person did not answer: cancelled the question, or stopped (Ctrl-C, end of input). */
type NotAnswered = Stopped['stopped'] | 'cancel';

const REASONS: Record<NotAnswered, string> = {
  cancel: 'The user cancelled the question; no answer was given.',
  interrupt: 'The user interrupted the question; no answer was given.',
  eof: 'The user closed the input before answering; no answer was given.',
};

function cancelled(how: NotAnswered): number {
  process.stdout.write(`${toolErrorResult('question_cancelled', REASONS[how])}\n`);
  return ASK_CANCELLED;
}

export async function ask(prompter: Prompter, args: string[]): Promise<number> {
  const json = args.join(' ').trim();
  if (json === '') {
    process.stderr.write(`Error: Missing JSON parameter\n${ASK_USAGE}\n`);
    return ASK_INVALID;
  }
  const parsed = parseQuestionInput(json, resolveQuestionLimits());
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n${ASK_USAGE}\n`);
    return ASK_INVALID;
  }
  // Ctrl-C at a line prompt arrives as a signal; arrow-key prompts report it as a cancellation.
  const dispose = onInterrupt(() => process.exit(cancelled('interrupt')));
  const answers = await prompter.questions(parsed.questions).finally(dispose);
  if (isStopped(answers)) return cancelled(answers.stopped);
  if (isQuestionCancelled(answers)) return cancelled('cancel');
  const normalized = normalizeAnswers(parsed.questions, answers);
  process.stdout.write(`${formatAnswersResult(parsed.questions, normalized)}\n`);
  return ASK_ANSWERED;
}
