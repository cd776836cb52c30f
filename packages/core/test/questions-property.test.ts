import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerError } from '../src/errors.js';
import {
  DEFAULT_QUESTION_LIMITS,
  type NormalizedAnswer,
  normalizeAnswers,
  parseQuestionInput,
  sameAnswers,
} from '../src/questions/index.js';
import type { Question } from '../src/types.js';

const questions: Question[] = [
  {
    id: 'auth',
    question: 'Which authentication method?',
    header: 'Auth method',
    options: ['OAuth', 'JWT', 'Sessions'].map((label) => ({ label, description: '' })),
    multiSelect: false,
  },
  {
    id: 'q1',
    question: 'Which features?',
    header: 'Features',
    options: ['Caching', 'Logging'].map((label) => ({ label, description: '' })),
    multiSelect: true,
  },
];

const nearLabel = fc.constantFrom('OAuth', 'JWT', 'Sessions', 'Caching', 'Logging', 'Other', '', '__proto__');
const nearKey = fc.constantFrom(
  'Auth method',
  'Features',
  'auth',
  'q1',
  '0',
  '1',
  '2',
  'Which features?',
  '__proto__',
);
const junk = fc.anything({
  withNullPrototype: true,
  withSparseArray: true,
  withBoxedValues: true,
  maxDepth: 3,
});
/** Values close to real answers, so the generator reaches the deep rules and not only the type checks. */
const nearAnswer: fc.Arbitrary<unknown> = fc.oneof(
  nearLabel,
  fc.array(fc.oneof(nearLabel, junk), { maxLength: 4 }),
  fc.record(
    {
      selected: fc.oneof(fc.array(nearLabel, { maxLength: 3 }), junk),
      other: fc.oneof(fc.string(), junk),
      note: fc.oneof(fc.string(), junk),
      skipped: fc.oneof(fc.constant(true), junk),
    },
    { requiredKeys: [] },
  ),
  junk,
);
/** A well-typed answer to one question, often valid, sometimes breaking a selection rule. */
function plausibleAnswer(question: Question): fc.Arbitrary<unknown> {
  const labels = question.options.map((option) => option.label);
  const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constant('  '));
  return fc.oneof(
    fc.constantFrom(...labels),
    fc.shuffledSubarray(labels),
    fc.record(
      { selected: fc.shuffledSubarray(labels), other: text, note: text },
      { requiredKeys: ['selected'] },
    ),
    fc.constant({ skipped: true }),
  );
}
const plausible = fc.tuple(...questions.map(plausibleAnswer));

const answers: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: plausible.map(([auth, features]) => ({ 'Auth method': auth, q1: features })), weight: 3 },
  { arbitrary: plausible, weight: 2 },
  fc.dictionary(nearKey, nearAnswer, { maxKeys: 4 }),
  fc.array(nearAnswer, { maxLength: 3 }),
  nearAnswer,
  // JSON.parse makes `__proto__` an own key, as it arrives over HTTP.
  fc.dictionary(nearKey, nearAnswer, { maxKeys: 4 }).map((value) => {
    try {
      return JSON.parse(JSON.stringify(value).replace(/"Features"/, '"__proto__"'));
    } catch {
      return value;
    }
  }),
);

function assertValid(result: NormalizedAnswer[]): void {
  expect(result).toHaveLength(questions.length);
  result.forEach((answer, index) => {
    const question = questions[index]!;
    expect(answer.questionId).toBe(question.id);
    if ('skipped' in answer) return;
    const labels = question.options.map((option) => option.label);
    const positions = answer.selected.map((label) => labels.indexOf(label));
    expect(positions.every((position, i) => position >= 0 && (i === 0 || position > positions[i - 1]!))).toBe(
      true,
    );
    if (answer.other !== undefined) expect(answer.other.trim()).toBe(answer.other);
    if (answer.other !== undefined) expect(answer.other).not.toBe('');
    const choices = answer.selected.length + (answer.other === undefined ? 0 : 1);
    if (question.multiSelect) expect(choices).toBeGreaterThanOrEqual(1);
    else expect(choices).toBe(1);
  });
}

/** The normalised answer written back in the object form; it must normalise to itself. */
function asInput(result: NormalizedAnswer[]): Record<string, unknown> {
  return Object.fromEntries(
    result.map((answer, index) => {
      const { questionId: _, ...fields } = answer;
      return [questions[index]!.header, fields];
    }),
  );
}

describe('normalizeAnswers (properties)', () => {
  it('only ever returns a valid normalisation or throws an AnswerError, and pollutes nothing', () => {
    fc.assert(
      fc.property(answers, (input) => {
        let result: NormalizedAnswer[];
        try {
          result = normalizeAnswers(questions, input);
        } catch (error) {
          expect(error).toBeInstanceOf(AnswerError);
          const issues = (error as AnswerError).issues;
          expect(issues.length).toBeGreaterThan(0);
          for (const issue of issues) expect(issue.path[0]).toBe('answers');
          return;
        }
        assertValid(result);
        expect(sameAnswers(normalizeAnswers(questions, asInput(result)), result)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(({} as Record<string, unknown>).selected).toBeUndefined();
  });
});

describe('parseQuestionInput (properties)', () => {
  it('never throws, whatever the arguments text', () => {
    const text = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything({ maxDepth: 4 }).map((value) => JSON.stringify({ questions: [value] }) ?? ''),
    );
    fc.assert(
      fc.property(text, (raw) => {
        const result = parseQuestionInput(raw, DEFAULT_QUESTION_LIMITS);
        if (!result.ok) expect(result.message).toMatch(/^Error: (Invalid JSON format|Validation failed)\n/);
      }),
      { numRuns: 1000 },
    );
  });
});
