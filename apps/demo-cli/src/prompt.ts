/**
 * What the CLI asks a person, independent of how: answers to questions, a decision on an approval,
 * the value of a tool's form, the next chat message. The two ways of asking (`prompt-tty.ts`,
 * `prompt-lines.ts`) implement {@link Prompter}; `prompter.ts` picks one.
 *
 * Three ways of not answering differ: {@link Stopped} (end of input, Esc, Ctrl-C) sends nothing and
 * leaves the run waiting; {@link QuestionCancelled} (`/cancel`, the Cancel row) is an answer of its
 * own, and the model is told `question_cancelled`; {@link TimedOut} means the interaction's
 * deadline passed while the prompt was open (the caller lets the run go on). Skipping one question
 * is an answer too (`{ skipped: true }`).
 */
import type { ApprovalPayload, InputPayload, Question, QuestionAnswer } from '@turnkit/core';

/** The person stopped answering: end of input (EOF, Esc, Ctrl-D) or Ctrl-C. Nothing was sent. */
export interface Stopped {
  stopped: 'eof' | 'interrupt';
}

/** The person cancelled the question (all questions of the interaction): the model is told so. */
export interface QuestionCancelled {
  cancelledQuestion: true;
}

/** The interaction's deadline passed while its prompt was open; the prompt closed without an answer. */
export interface TimedOut {
  timedOut: true;
}

/** Who asked and until when: shown on the card (the asker when a sub-agent; a countdown). */
export interface AskContext {
  /** Agent names from the top agent down to the one that asked. */
  agentPath?: readonly string[];
  /** When the interaction expires (epoch ms); the prompt closes then with {@link TimedOut}. */
  deadline?: number;
}

export type ApprovalDecision =
  | { decision: 'approve'; editedInput?: unknown; rationale?: string }
  | { decision: 'reject'; rationale?: string };

export interface Prompter {
  /**
   * One answer per question, in question order: choices with free text, the typed text, or a
   * skip. `agentPath` names the agent that asked (shown when it is a sub-agent).
   */
  questions(
    questions: Question[],
    asked?: AskContext,
  ): Promise<QuestionAnswer[] | QuestionCancelled | Stopped | TimedOut>;
  approval(approval: ApprovalPayload, agentPath?: readonly string[]): Promise<ApprovalDecision | Stopped>;
  /**
   * The value of a tool's form (`ctx.ask({ input })`), built from its JSON Schema field by field;
   * core checks it against the schema when it is sent.
   */
  input(
    form: InputPayload,
    asked: AskContext & { toolName: string },
  ): Promise<{ value: unknown } | QuestionCancelled | Stopped | TimedOut>;
  /** The next chat message; an empty string means the person is done. */
  message(): Promise<string | Stopped>;
  close(): void;
}

/** Whether the person stopped answering (nothing is sent, the run stays waiting). */
export function isStopped(value: unknown): value is Stopped {
  return typeof value === 'object' && value !== null && 'stopped' in value;
}

/** Whether the prompt closed because the interaction's deadline passed. */
export function isTimedOut(value: unknown): value is TimedOut {
  return typeof value === 'object' && value !== null && 'timedOut' in value;
}

/** Whether the person cancelled the question. */
export function isQuestionCancelled(value: unknown): value is QuestionCancelled {
  return typeof value === 'object' && value !== null && 'cancelledQuestion' in value;
}

/** A question answered by typing: it has no options to choose from (DESIGN §14). */
export function isFreeText(question: Question): boolean {
  return question.options.length === 0;
}
