/**
 * `turnkit-demo ask '<json>'`: AskUserQuestion as a shell command, so an agent with only a shell
 * tool can ask the human. Same validation and limits as the tool (core's parser), same cards as a
 * run (drawn on stderr), and the same result text the model would get, on stdout.
 * Exit codes: 0 answered, 1 bad or missing JSON, 2 cancelled or end of input.
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
import { type Cancelled, isCancelled, type Prompter } from '../prompter.js';

export const ASK_ANSWERED = 0;
export const ASK_INVALID = 1;
export const ASK_CANCELLED = 2;

function cancelled(how: Cancelled['cancelled']): number {
  const reason = how === 'interrupt' ? 'interrupted the question' : 'closed the input before answering';
  process.stdout.write(
    `${toolErrorResult('question_cancelled', `The user ${reason}; no answer was given.`)}\n`,
  );
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
  if (isCancelled(answers)) return cancelled(answers.cancelled);
  const normalized = normalizeAnswers(parsed.questions, answers);
  process.stdout.write(`${formatAnswersResult(parsed.questions, normalized)}\n`);
  return ASK_ANSWERED;
}
