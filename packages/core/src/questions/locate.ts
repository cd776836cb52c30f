/**
 * Finding each question's answer in what the caller sent: an object keyed by header, question
 * text, id or index (matched in that order), a positional array, or one label string.
 */
import type { Question } from '../types.js';
import { describe, type IssueList, isPlainObject, type Path, quote } from './issues.js';

/** The fields of an answer object; a key named like one is a misplaced answer, not a header. */
export const ANSWER_FIELDS = ['selected', 'other', 'note', 'skipped'];

/** One answer value located in the input, before it is checked against its question. */
export type Entry = { questionIndex: number; value: unknown; path: Path };

function headersOf(questions: Question[]): string {
  return questions.map((q) => quote(q.header)).join(', ');
}

/** Where each question's answer sits in `answers`; shape problems and unknown keys become issues. */
export function locate(questions: Question[], answers: unknown, issues: IssueList): Entry[] | undefined {
  if (typeof answers === 'string') {
    if (questions.length === 1) return [{ questionIndex: 0, value: answers, path: ['answers'] }];
    issues.add(
      ['answers'],
      `A plain string answers a single question, and there are ${questions.length}: send an object keyed by header (${headersOf(questions)})`,
    );
    return undefined;
  }
  if (Array.isArray(answers)) {
    // One multi-select question answered with a plain list of its labels: ['Caching', 'Logging'].
    const only = questions.length === 1 ? questions[0]! : undefined;
    const labelList =
      only?.multiSelect === true &&
      answers.length > 0 &&
      answers.length <= only.options.length &&
      answers.every((item, index) => Object.hasOwn(answers, index) && typeof item === 'string');
    if (labelList) {
      return [{ questionIndex: 0, value: answers, path: ['answers'] }];
    }
    if (answers.length > questions.length) {
      issues.add(['answers'], `Has ${answers.length} answers for ${questions.length} questions`);
    }
    const entries: Entry[] = [];
    for (let index = 0; index < Math.min(answers.length, questions.length); index++) {
      if (Object.hasOwn(answers, index))
        entries.push({ questionIndex: index, value: answers[index], path: ['answers', index] });
    }
    return entries;
  }
  if (!isPlainObject(answers)) {
    issues.add(
      ['answers'],
      `Expected an object keyed by question header, an array in question order, or a label string; got ${describe(answers)}`,
    );
    return undefined;
  }
  // Keys match headers first, then question texts, then ids, then indexes (DESIGN §6).
  const byKey = new Map<string, number>();
  for (const property of ['header', 'question', 'id'] as const) {
    questions.forEach((q, index) => {
      if (!byKey.has(q[property])) byKey.set(q[property], index);
    });
  }
  const entries: Entry[] = [];
  const keyOf = new Map<number, string>();
  for (const key of Object.keys(answers)) {
    const questionIndex = byKey.get(key) ?? (/^(0|[1-9]\d{0,5})$/.test(key) ? Number(key) : undefined);
    if (questionIndex === undefined || questionIndex >= questions.length) {
      const hint = ANSWER_FIELDS.includes(key)
        ? `; put the answer under its header, e.g. {${quote(questions[0]!.header)}: {…}}`
        : '';
      issues.add(
        ['answers', key],
        `No question has this header, text, id or index (headers: ${headersOf(questions)})${hint}`,
      );
      continue;
    }
    const earlier = keyOf.get(questionIndex);
    if (earlier !== undefined) {
      issues.add(
        ['answers', key],
        `Answers the same question as ${quote(earlier)}; give each question one answer`,
      );
      continue;
    }
    keyOf.set(questionIndex, key);
    entries.push({ questionIndex, value: answers[key], path: ['answers', key] });
  }
  return entries;
}
