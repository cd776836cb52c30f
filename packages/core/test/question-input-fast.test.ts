/**
 * The question input's fast path (DESIGN §16): a hand-written check of the common valid shape, with
 * the zod schema only when that check finds anything off. Whatever the model sends, the result must
 * be the zod-only parser's, to the byte: the same questions, or the same error text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUESTION_LIMITS, type QuestionLimits } from '../src/questions/limits.js';
import { readPlainInput } from '../src/questions/plain-input.js';
import { parseQuestionInput, parseWithSchema } from '../src/questions/schema.js';

/** Tight limits, so the generated texts and lists cross every bound often. */
const TIGHT: QuestionLimits = {
  maxQuestions: 2,
  maxOptions: 3,
  headerMaxLength: 4,
  questionMaxLength: 6,
  labelMaxLength: 4,
  descriptionMaxLength: 5,
};

function zodOnly(raw: string, limits: QuestionLimits): ReturnType<typeof parseQuestionInput> {
  return parseWithSchema(JSON.parse(raw), limits);
}

/** Short texts near the bounds: blanks to trim, repeats, control characters, a tab, a newline. */
const text = fc.oneof(
  fc.constantFrom('A', 'B', 'Yes', 'No', ' A ', '', '  ', 'A\tB', 'A\nB', 'q0', 'q1', 'Q?', '__proto__'),
  fc.constantFrom('\u0000', 'x\u001bx', '\u007f', '\u0085', ' \u009f'),
  fc.string({ maxLength: 8 }),
);

/** A value where a text or a flag is expected: mostly right, sometimes the wrong type. */
const loose = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 0, 1, true, false, [], {}, ['A']) },
);
const flag = fc.oneof(
  { weight: 4, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'true', 0) },
);

function record(fields: Record<string, fc.Arbitrary<unknown>>, unknownKeys: string[]) {
  const known = fc.record(fields, { requiredKeys: [] });
  const extra = fc.option(fc.dictionary(fc.constantFrom(...unknownKeys), loose, { maxKeys: 1 }), {
    freq: 6,
  });
  return fc.tuple(known, extra).map(([value, more]) => ({ ...value, ...(more ?? {}) }));
}

const option = fc.oneof(
  { weight: 2, arbitrary: text },
  {
    weight: 3,
    arbitrary: record({ label: loose, description: loose, preview: loose }, ['value', 'hint', '__proto__']),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 3, []) },
);

const context = record({ refs: fc.oneof(fc.array(loose, { maxLength: 3 }), loose), hint: loose }, [
  'ref',
  'links',
]);

const question = record(
  {
    id: loose,
    question: loose,
    header: loose,
    options: fc.oneof(fc.array(option, { maxLength: 4 }), fc.constantFrom<unknown>(null, 'A', {})),
    multiSelect: flag,
    multiple: flag,
    context: fc.oneof(context, fc.constantFrom<unknown>(null, 'x')),
  },
  ['timeoutMs', 'answers', 'type'],
);

const questionList = fc.array(question, { maxLength: 3 });

const input = fc.oneof(
  { weight: 8, arbitrary: record({ questions: questionList, to: loose }, ['answers', 'constructor']) },
  // Some models double-encode the list as a JSON string.
  { weight: 1, arbitrary: questionList.map((list) => ({ questions: JSON.stringify(list) })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], 'questions', 7, { questions: null }) },
);

/** Plain, valid inputs in every dialect, so the fast path is taken as well as refused. */
const validQuestion = fc
  .record(
    {
      question: fc.constantFrom('Which?', 'Why?', 'Who?', ' How? '),
      header: fc.constantFrom('Rack', 'Lot', 'Tier'),
      options: fc.constantFrom<unknown[]>(
        [],
        ['A', 'B'],
        [' A', { label: 'B', description: 'Bee' }],
        [
          { label: 'A', description: 'Ay', preview: ' x ' },
          { label: 'B', description: 'Bee', preview: '' },
          'C',
        ],
      ),
      id: fc.constantFrom('q0', 'q1', 'pick', ' p '),
      multiSelect: fc.boolean(),
      multiple: fc.boolean(),
      context: fc.record(
        {
          refs: fc.array(fc.constantFrom('a.ts', ' b '), { maxLength: 2 }),
          hint: fc.constantFrom('Hm', ' h '),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['question', 'header'] },
  )
  .filter((q) => !((q.options ?? []).length === 0 && (q.multiSelect || q.multiple)))
  .filter((q) => q.multiSelect === undefined || q.multiple === undefined || q.multiSelect === q.multiple);
const validInput = fc.record(
  {
    questions: fc.uniqueArray(validQuestion, { minLength: 1, maxLength: 2, selector: (q) => q.header }),
    to: fc.constantFrom('user', 'parent'),
  },
  { requiredKeys: ['questions'] },
);

/** What one edit writes at a spot of a valid input: each a way to be almost right. */
const wrongValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      1,
      true,
      [],
      {},
      ['A', 'A'],
      Array.from({ length: 11 }, (_, index) => `r${index}`),
      'A',
      '',
      ' ',
      'A'.repeat(13),
      '\u0000',
      'x\u001b',
      '\u0085',
      'q1',
      'bot',
    ),
  },
  { weight: 1, arbitrary: text },
);

/** Every (container, key) pair inside `value`: where an edit can set or delete a value. */
function spots(
  value: unknown,
  found: [Record<string, unknown>, string][] = [],
): [Record<string, unknown>, string][] {
  if (typeof value !== 'object' || value === null) return found;
  const container = value as Record<string, unknown>;
  for (const key of Object.keys(container)) {
    found.push([container, key]);
    spots(container[key], found);
  }
  return found;
}

/** One edit: set or delete the value at a spot (picked by position), or add a key beside it. */
interface Edit {
  at: number;
  kind: 'set' | 'delete' | 'add';
  key: string;
  value: unknown;
}

const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('set', 'set', 'delete', 'add'),
  key: fc.constantFrom('extra', 'preview', 'refs', 'hint', 'id', 'multiple', 'to', 'options', 'label'),
  value: wrongValue,
});

function applyEdit(value: unknown, change: Edit): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const all = spots(copy);
  if (all.length === 0) return copy;
  const [container, key] = all[change.at % all.length]!;
  if (change.kind === 'delete' && Array.isArray(container)) container.splice(Number(key), 1);
  else if (change.kind === 'delete') delete container[key];
  else container[change.kind === 'add' && !Array.isArray(container) ? change.key : key] = change.value;
  return copy;
}

/** A valid input with one or two things wrong: where a hand-written check is most likely to slip. */
const nearValidInput = fc
  .tuple(validInput, fc.array(edit, { minLength: 1, maxLength: 2 }))
  .map(([value, changes]) => changes.reduce(applyEdit, value as unknown));

describe('parseQuestionInput with its fast path', () => {
  const cases = [
    ['any input', fc.oneof(input, validInput), 1000],
    ['a valid input with one or two things wrong', nearValidInput, 3000],
  ] as const;
  for (const [what, arbitrary, numRuns] of cases) {
    for (const [name, limits] of [
      ['the default limits', DEFAULT_QUESTION_LIMITS],
      ['tight limits', TIGHT],
    ] as const) {
      it(`gives the zod-only parser's result or error text for ${what}, under ${name}`, () => {
        fc.assert(
          fc.property(arbitrary, (value) => {
            const raw = JSON.stringify(value);
            const expected = zodOnly(raw, limits);
            const actual = parseQuestionInput(raw, limits);
            expect(actual).toStrictEqual(expected);
            expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
          }),
          { numRuns: limits === TIGHT ? numRuns / 2 : numRuns },
        );
      });
    }
  }

  it('takes the fast path for the common valid shapes, and only when zod accepts the input', () => {
    let fast = 0;
    fc.assert(
      fc.property(fc.oneof(validInput, nearValidInput), (value) => {
        const plain = readPlainInput(JSON.parse(JSON.stringify(value)), DEFAULT_QUESTION_LIMITS);
        if (plain === undefined) return;
        fast++;
        expect(zodOnly(JSON.stringify(value), DEFAULT_QUESTION_LIMITS).ok).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // Half the runs draw a valid input; most of those have no duplicate and take the fast path.
    expect(fast).toBeGreaterThan(300);
  });
});
