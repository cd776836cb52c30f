/**
 * The result text the model receives once a question is resolved: `{"answers":{"<header>": "…"}}`,
 * the shape the AskUserQuestion description promises. Keys are headers, in question order.
 */
import type { Question } from '../types.js';
import type { NormalizedAnswer } from './answers.js';

/**
 * Written by hand rather than through an object, because `JSON.stringify` moves integer-like keys
 * (a header such as `"2024"`) to the front, and the model should read the questions in the order
 * it asked them.
 */
function answersJson(entries: [header: string, value: string][]): string {
  const members = entries.map(([header, value]) => `${JSON.stringify(header)}:${JSON.stringify(value)}`);
  return `{"answers":{${members.join(',')}}}`;
}

/**
 * A question with no entry reads as skipped, so the model is never handed an empty value. The
 * answer to a free-text question (no options) is the text itself.
 */
function answerText(question: Question, answer: NormalizedAnswer | undefined): string {
  if (answer === undefined || 'skipped' in answer) return '(skipped)';
  const parts = [...answer.selected];
  if (answer.other !== undefined) {
    parts.push(question.options.length === 0 ? answer.other : `Other (custom: ${answer.other})`);
  }
  const text = parts.join(', ');
  return answer.note === undefined ? text : `${text} (note: ${answer.note})`;
}

/**
 * The model's result for answered questions, e.g.
 * `{"answers":{"Auth method":"JWT","Features":"Caching, Other (custom: audit log) (note: soon)"}}`:
 * labels joined with `, `, free text as `Other (custom: …)` (the text alone for a free-text
 * question), a note appended as ` (note: …)`, a skipped question as `(skipped)`.
 */
export function formatAnswersResult(questions: Question[], answers: NormalizedAnswer[]): string {
  const byId = new Map(answers.map((answer) => [answer.questionId, answer]));
  return answersJson(questions.map((q) => [q.header, answerText(q, byId.get(q.id))]));
}

/**
 * The model's result when a question expired with `onExpire: 'recommended'`: each question takes
 * its first option (where the description asks the recommended one to be), marked so the model
 * knows nobody chose it: `<label> (chosen by default: no answer before <expiresAt>)`; a free-text
 * question has no default: `(no answer before <expiresAt>)`.
 */
export function formatDefaultedResult(questions: Question[], expiresAt: string): string {
  return answersJson(
    questions.map((q) => [
      q.header,
      q.options[0]
        ? `${q.options[0].label} (chosen by default: no answer before ${expiresAt})`
        : `(no answer before ${expiresAt})`,
    ]),
  );
}
