/**
 * Validation and normalisation of a human's answers to a pending question (DESIGN §6). Answers come
 * from outside (HTTP bodies, parent models), so every value is `unknown` until checked: the only
 * thing this module throws is an `AnswerError` listing every problem, and it never writes to the
 * input. Equal answers normalise to equal values, which makes repeated answers comparable.
 */
import { AnswerError } from '../errors.js';
import type { Question } from '../types.js';
import { describe, field, IssueList, isPlainObject, type Path, quote, reasonOf } from './issues.js';
import { ANSWER_FIELDS, locate } from './locate.js';
import { controlCharacterIn, controlCharacterMessage } from './text.js';

/** One question's answer after validation: labels in option order plus free text, or a skip. */
export type NormalizedAnswer =
  | { questionId: string; selected: string[]; other?: string; note?: string }
  | { questionId: string; skipped: true };

/** `other` and `note` are free text from a human; 16 KB each keeps snapshots and prompts bounded. */
const TEXT_MAX_BYTES = 16 * 1024;

/** Avoids encoding when the length settles it: each UTF-16 unit takes 1 to 3 bytes of UTF-8. */
function exceedsTextLimit(text: string): boolean {
  if (text.length > TEXT_MAX_BYTES) return true;
  if (text.length * 3 <= TEXT_MAX_BYTES) return false;
  return new TextEncoder().encode(text).length > TEXT_MAX_BYTES;
}

/**
 * The answer to a free-text question (no options): the text itself, as a string or `{ other }`
 * (both normalise to the same record), with an optional `note`, or `{ skipped: true }`.
 */
function readText(
  question: Question,
  value: unknown,
  path: Path,
  issues: IssueList,
): NormalizedAnswer | undefined {
  const before = issues.count;
  const fields: Record<string, unknown> | undefined =
    typeof value === 'string' ? { other: value } : isPlainObject(value) ? value : undefined;
  if (fields === undefined) {
    issues.add(
      path,
      `Expected the typed answer as a string, {"other": "…"} or {"skipped": true}; got ${describe(value)}`,
    );
    return undefined;
  }
  for (const key of Object.keys(fields)) {
    if (key === 'selected') {
      issues.add(
        [...path, key],
        'This question has no options to select: give the typed answer as a string or "other"',
      );
    } else if (!ANSWER_FIELDS.includes(key)) {
      issues.add(
        [...path, key],
        'Unknown field; a free-text answer has "other" and "note", or only "skipped": true',
      );
    }
  }
  if (field(fields, 'skipped') === true && Object.keys(fields).length === 1) {
    return { questionId: question.id, skipped: true };
  }
  if (field(fields, 'skipped') !== undefined) issues.add([...path, 'skipped'], 'Must be true, and alone');
  const textPath = typeof value === 'string' ? path : [...path, 'other'];
  const other = readFreeText(question, field(fields, 'other'), textPath, issues);
  if (other === undefined && issues.count === before) {
    issues.add(
      textPath,
      'Type an answer (it must not be empty), or skip the question with {"skipped": true}',
    );
  }
  const note = readFreeText(question, field(fields, 'note'), [...path, 'note'], issues);
  if (issues.count !== before || other === undefined) return undefined;
  return { questionId: question.id, selected: [], other, ...(note === undefined ? {} : { note }) };
}

/** A label array (the answer itself, or its `selected`) resolved to option indexes. */
function readLabels(question: Question, value: unknown, path: Path, issues: IssueList): number[] {
  if (!Array.isArray(value)) {
    issues.add(path, `Expected an array of labels; got ${describe(value)}`);
    return [];
  }
  if (value.length > question.options.length) {
    issues.add(path, `Has ${value.length} labels and the question has ${question.options.length} options`);
    return [];
  }
  const chosen: number[] = [];
  for (let index = 0; index < value.length; index++) {
    if (!Object.hasOwn(value, index)) issues.add([...path, index], 'Missing label (the array has a hole)');
    else readLabel(question, value[index], [...path, index], issues, chosen);
  }
  return chosen;
}

function readLabel(
  question: Question,
  value: unknown,
  path: Path,
  issues: IssueList,
  chosen: number[],
): number[] {
  if (typeof value !== 'string') {
    issues.add(path, `Expected a label; got ${describe(value)}`);
    return chosen;
  }
  if (hasControlCharacter(question, value, path, issues)) return chosen;
  const index = question.options.findIndex((option) => option.label === value);
  if (index === -1) {
    const labels = question.options.map((option) => quote(option.label)).join(', ');
    issues.add(path, `${quote(value)} is not an option (options: ${labels}); free text goes in "other"`);
  } else if (chosen.includes(index)) {
    issues.add(path, `${quote(value)} is selected twice`);
  } else {
    chosen.push(index);
  }
  return chosen;
}

/**
 * Answers are text: a control character (C0 but tab and newline, DEL, C1) is refused, never
 * stripped, since the human meant something else and should say it again.
 */
function hasControlCharacter(question: Question, text: string, path: Path, issues: IssueList): boolean {
  const found = controlCharacterIn(text);
  if (found === undefined) return false;
  issues.add(path, controlCharacterMessage(found, `The answer to ${quote(question.question)}`));
  return true;
}

/**
 * `other` or `note`: a string of at most 16 KB of UTF-8 without control characters, trimmed;
 * `undefined` when left out or blank.
 */
function readFreeText(question: Question, value: unknown, path: Path, issues: IssueList): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    issues.add(path, `Expected a string; got ${describe(value)}`);
    return undefined;
  }
  if (hasControlCharacter(question, value, path, issues)) return undefined;
  if (exceedsTextLimit(value)) {
    issues.add(path, `Too long: more than ${TEXT_MAX_BYTES} bytes (16 KB) of UTF-8`);
    return undefined;
  }
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function readAnswer(
  question: Question,
  value: unknown,
  path: Path,
  issues: IssueList,
): NormalizedAnswer | undefined {
  if (question.options.length === 0) return readText(question, value, path, issues);
  const before = issues.count;
  let chosen: number[];
  let other: string | undefined;
  let note: string | undefined;
  let countPath = path;
  if (typeof value === 'string') {
    chosen = readLabel(question, value, path, issues, []);
  } else if (Array.isArray(value)) {
    chosen = readLabels(question, value, path, issues);
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (!ANSWER_FIELDS.includes(key)) {
        issues.add(
          [...path, key],
          'Unknown field; an answer has "selected", "other" and "note", or only "skipped": true',
        );
      }
    }
    const skipped = field(value, 'skipped');
    if (skipped !== undefined) {
      if (skipped !== true)
        issues.add([...path, 'skipped'], 'Must be true; leave it out to answer the question');
      else if (['selected', 'other', 'note'].some((key) => field(value, key) !== undefined)) {
        issues.add(path, 'A skipped question takes no "selected", "other" or "note"');
      }
      return issues.count === before ? { questionId: question.id, skipped: true } : undefined;
    }
    countPath = [...path, 'selected'];
    const selected = field(value, 'selected');
    chosen = selected === undefined ? [] : readLabels(question, selected, countPath, issues);
    const otherBefore = issues.count;
    other = readFreeText(question, field(value, 'other'), [...path, 'other'], issues);
    if (other === undefined && typeof field(value, 'other') === 'string' && issues.count === otherBefore) {
      issues.add([...path, 'other'], 'Must not be empty; leave it out, or skip the question');
    }
    note = readFreeText(question, field(value, 'note'), [...path, 'note'], issues);
  } else {
    issues.add(
      path,
      `Expected a label, an array of labels, {"selected": […], "other"?, "note"?} or {"skipped": true}; got ${describe(value)}`,
    );
    return undefined;
  }
  if (issues.count !== before) return undefined;
  if (question.multiSelect) {
    if (chosen.length === 0 && other === undefined)
      issues.add(countPath, 'Choose at least one option, or give "other"');
  } else if (chosen.length > 1) {
    issues.add(countPath, `Choose exactly one option: the question is single-select (got ${chosen.length})`);
  } else if (chosen.length === 1 && other !== undefined) {
    issues.add(path, 'Give one label or "other", not both: the question is single-select');
  } else if (chosen.length === 0 && other === undefined) {
    issues.add(countPath, 'Choose one option, or give "other"');
  }
  if (issues.count !== before) return undefined;
  // Option order, not click order: 'A, B' and 'B, A' are the same answer.
  const selected = chosen.sort((a, b) => a - b).map((index) => question.options[index]!.label);
  return {
    questionId: question.id,
    selected,
    ...(other === undefined ? {} : { other }),
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * Validates `answers` against the questions and returns one normalised answer per question, in
 * question order, with `selected` in option order (so `'JWT'`, `['JWT']` and `{ selected: ['JWT'] }`
 * normalise alike). Accepts an object keyed by header, question text, id or index (matched in that
 * order), a positional array, or a plain label string when there is exactly one question. Every
 * question must be answered or `{ skipped: true }`.
 *
 * @throws AnswerError listing every problem, with paths such as `['answers', 'Auth method', 'selected', 1]`.
 */
export function normalizeAnswers(questions: Question[], answers: unknown): NormalizedAnswer[] {
  const issues = new IssueList();
  const results = new Map<number, NormalizedAnswer>();
  try {
    const entries = locate(questions, answers, issues);
    if (entries !== undefined) {
      for (const entry of entries) {
        const answer = readAnswer(questions[entry.questionIndex]!, entry.value, entry.path, issues);
        if (answer !== undefined) results.set(entry.questionIndex, answer);
      }
      const answered = new Set(entries.map((entry) => entry.questionIndex));
      questions.forEach((q, index) => {
        if (answered.has(index)) return;
        const path = Array.isArray(answers) ? ['answers', index] : ['answers', q.header];
        issues.add(
          path,
          `Missing answer to ${quote(q.question)}: give a label, {"other": "…"} or {"skipped": true}`,
        );
      });
    }
  } catch (error) {
    // Proxies and throwing getters can fail any read; the caller still gets the one promised error.
    issues.add(['answers'], `Could not be read (${reasonOf(error)})`);
  }
  if (issues.count > 0) throw new AnswerError(issues.all());
  return questions.map((_, index) => results.get(index)!);
}

/** True when two normalised answer lists are the same answer, e.g. to recognise a repeated answer. */
export function sameAnswers(a: NormalizedAnswer[], b: NormalizedAnswer[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((left, index) => {
    const right = b[index]!;
    if (left.questionId !== right.questionId) return false;
    if ('skipped' in left || 'skipped' in right) return 'skipped' in left && 'skipped' in right;
    return (
      left.other === right.other &&
      left.note === right.note &&
      left.selected.length === right.selected.length &&
      left.selected.every((label, position) => label === right.selected[position])
    );
  });
}
