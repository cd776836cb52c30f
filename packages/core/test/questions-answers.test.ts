import { describe, expect, it } from 'vitest';
import { AnswerError, type AnswerIssue } from '../src/errors.js';
import { normalizeAnswers, sameAnswers } from '../src/questions/index.js';
import type { Question } from '../src/types.js';

const auth: Question = {
  id: 'auth',
  question: 'Which authentication method should we use?',
  header: 'Auth method',
  options: [
    { label: 'OAuth 2.0', description: 'Social login' },
    { label: 'JWT', description: 'Stateless tokens' },
    { label: 'Sessions', description: 'Server-side state' },
  ],
  multiSelect: false,
};

const features: Question = {
  id: 'q1',
  question: 'Which features should we enable?',
  header: 'Features',
  options: [
    { label: 'Caching', description: 'Redis' },
    { label: 'Logging', description: 'JSON logs' },
    { label: 'Metrics', description: 'Prometheus' },
  ],
  multiSelect: true,
};

const both = [auth, features];

const box: Question = {
  id: 'box',
  question: 'Which box number?',
  header: 'Box',
  options: [],
  multiSelect: false,
};

/** The issues of the AnswerError that `answers` must raise. */
function issuesOf(questions: Question[], answers: unknown): AnswerIssue[] {
  try {
    normalizeAnswers(questions, answers);
  } catch (error) {
    expect(error).toBeInstanceOf(AnswerError);
    expect((error as AnswerError).code).toBe('ANSWER_INVALID');
    return (error as AnswerError).issues;
  }
  throw new Error('expected an AnswerError');
}

function paths(questions: Question[], answers: unknown): AnswerIssue['path'][] {
  return issuesOf(questions, answers).map((issue) => issue.path);
}

const jwtAndCaching = [
  { questionId: 'auth', selected: ['JWT'] },
  { questionId: 'q1', selected: ['Caching'] },
];

describe('normalizeAnswers', () => {
  describe('where answers are found', () => {
    it.each([
      ['headers', { 'Auth method': 'JWT', Features: ['Caching'] }],
      [
        'question texts',
        {
          'Which authentication method should we use?': 'JWT',
          'Which features should we enable?': 'Caching',
        },
      ],
      ['ids', { auth: 'JWT', q1: ['Caching'] }],
      ['indexes', { 0: 'JWT', 1: ['Caching'] }],
      ['mixed keys', { auth: 'JWT', Features: 'Caching' }],
    ])('reads an object keyed by %s', (_, answers) => {
      expect(normalizeAnswers(both, answers)).toEqual(jwtAndCaching);
    });

    it('reads a positional array', () => {
      expect(normalizeAnswers(both, ['JWT', ['Caching']])).toEqual(jwtAndCaching);
    });

    it('reads a plain label string when there is exactly one question', () => {
      expect(normalizeAnswers([auth], 'JWT')).toEqual([{ questionId: 'auth', selected: ['JWT'] }]);
    });

    it('refuses a plain string when there are two questions or more', () => {
      expect(issuesOf(both, 'JWT')).toEqual([
        {
          path: ['answers'],
          message:
            'A plain string answers a single question, and there are 2: send an object keyed by header ("Auth method", "Features")',
        },
      ]);
    });

    it('matches a header before a question text, id or index', () => {
      const tricky: Question[] = [
        { ...auth, id: 'Features' },
        { ...features, id: '0', header: '1' },
      ];
      expect(normalizeAnswers(tricky, { Features: 'JWT', 1: 'Metrics' })).toEqual([
        { questionId: 'Features', selected: ['JWT'] },
        { questionId: '0', selected: ['Metrics'] },
      ]);
    });

    it('refuses an unknown key, naming the headers', () => {
      expect(issuesOf(both, { 'Auth method': 'JWT', Features: 'Caching', Colour: 'Blue', 2: 'x' })).toEqual([
        {
          path: ['answers', '2'],
          message: 'No question has this header, text, id or index (headers: "Auth method", "Features")',
        },
        {
          path: ['answers', 'Colour'],
          message: 'No question has this header, text, id or index (headers: "Auth method", "Features")',
        },
      ]);
    });

    it('hints at the header when an answer object is sent without one', () => {
      const [issue] = issuesOf([auth], { selected: ['JWT'] });
      expect(issue!.message).toContain('put the answer under its header, e.g. {"Auth method": {…}}');
    });

    it('refuses two keys that answer the same question', () => {
      expect(issuesOf(both, { 'Auth method': 'JWT', auth: 'JWT', Features: 'Caching' })).toEqual([
        {
          path: ['answers', 'auth'],
          message: 'Answers the same question as "Auth method"; give each question one answer',
        },
      ]);
    });

    it('refuses a missing answer, with the path of the question', () => {
      expect(issuesOf(both, { 'Auth method': 'JWT' })).toEqual([
        {
          path: ['answers', 'Features'],
          message:
            'Missing answer to "Which features should we enable?": give a label, {"other": "…"} or {"skipped": true}',
        },
      ]);
      expect(paths(both, ['JWT'])).toEqual([['answers', 1]]);
    });

    it('refuses an array with more answers than questions', () => {
      expect(paths(both, ['JWT', 'Caching', 'Logging'])).toEqual([['answers']]);
    });
  });

  describe('what an answer may be', () => {
    it('takes a skip, which needs no choice', () => {
      expect(normalizeAnswers(both, { 'Auth method': { skipped: true }, Features: 'Logging' })).toEqual([
        { questionId: 'auth', skipped: true },
        { questionId: 'q1', selected: ['Logging'] },
      ]);
    });

    it('refuses skipped that is not true, or comes with a choice', () => {
      expect(issuesOf([auth], { 'Auth method': { skipped: false } })).toEqual([
        {
          path: ['answers', 'Auth method', 'skipped'],
          message: 'Must be true; leave it out to answer the question',
        },
      ]);
      expect(paths([auth], { 'Auth method': { skipped: true, selected: ['JWT'] } })).toEqual([
        ['answers', 'Auth method'],
      ]);
    });

    it('takes several labels on a multi-select question, in option order', () => {
      expect(normalizeAnswers([features], { Features: ['Metrics', 'Caching'] })).toEqual([
        { questionId: 'q1', selected: ['Caching', 'Metrics'] },
      ]);
    });

    it('takes free text in other, trimmed, instead of a label on a single-select question', () => {
      expect(normalizeAnswers([auth], { 'Auth method': { selected: [], other: '  Passkeys ' } })).toEqual([
        { questionId: 'auth', selected: [], other: 'Passkeys' },
      ]);
      expect(normalizeAnswers([auth], { 'Auth method': { other: 'Passkeys' } })).toEqual([
        { questionId: 'auth', selected: [], other: 'Passkeys' },
      ]);
    });

    it('takes labels plus other on a multi-select question, and a note', () => {
      const answer = { selected: ['Logging'], other: 'Audit trail', note: 'Logging first, please' };
      expect(normalizeAnswers([features], { Features: answer })).toEqual([{ questionId: 'q1', ...answer }]);
    });

    it('takes a note beside a label, and drops a blank one', () => {
      expect(normalizeAnswers([auth], { 'Auth method': { selected: ['JWT'], note: 'short-lived' } })).toEqual(
        [{ questionId: 'auth', selected: ['JWT'], note: 'short-lived' }],
      );
      expect(normalizeAnswers([auth], { 'Auth method': { selected: ['JWT'], note: '  ' } })).toEqual([
        { questionId: 'auth', selected: ['JWT'] },
      ]);
    });

    it('never takes a string as free text: a label that is not an option is refused', () => {
      expect(issuesOf([auth], 'Passkeys')).toEqual([
        {
          path: ['answers'],
          message:
            '"Passkeys" is not an option (options: "OAuth 2.0", "JWT", "Sessions"); free text goes in "other"',
        },
      ]);
    });

    it('refuses an unknown label with the path of the label', () => {
      expect(paths(both, { 'Auth method': 'JWT', Features: { selected: ['Caching', 'Tracing'] } })).toEqual([
        ['answers', 'Features', 'selected', 1],
      ]);
    });

    it('refuses two labels on a single-select question', () => {
      expect(issuesOf([auth], { 'Auth method': ['JWT', 'Sessions'] })).toEqual([
        {
          path: ['answers', 'Auth method'],
          message: 'Choose exactly one option: the question is single-select (got 2)',
        },
      ]);
    });

    it('refuses a label plus other on a single-select question', () => {
      expect(issuesOf([auth], { 'Auth method': { selected: ['JWT'], other: 'Passkeys' } })).toEqual([
        {
          path: ['answers', 'Auth method'],
          message: 'Give one label or "other", not both: the question is single-select',
        },
      ]);
    });

    it('refuses no choice at all', () => {
      expect(paths([auth], { 'Auth method': [] })).toEqual([['answers', 'Auth method']]);
      expect(paths([features], { Features: { selected: [] } })).toEqual([
        ['answers', 'Features', 'selected'],
      ]);
      expect(paths([features], { Features: { note: 'hm' } })).toEqual([['answers', 'Features', 'selected']]);
    });

    it('refuses a label given twice', () => {
      expect(issuesOf([features], { Features: ['Caching', 'Caching'] })).toEqual([
        { path: ['answers', 'Features', 1], message: '"Caching" is selected twice' },
      ]);
    });

    it('refuses an empty other', () => {
      expect(paths([auth], { 'Auth method': { other: '   ' } })).toEqual([
        ['answers', 'Auth method', 'other'],
      ]);
    });

    it('refuses other and note over 16 KB of UTF-8, counting bytes rather than characters', () => {
      const chinese = '中'.repeat(6000); // 6000 characters, 18000 bytes
      expect(issuesOf([auth], { 'Auth method': { other: chinese } })).toEqual([
        {
          path: ['answers', 'Auth method', 'other'],
          message: 'Too long: more than 16384 bytes (16 KB) of UTF-8',
        },
      ]);
      expect(
        paths([auth], { 'Auth method': { selected: ['JWT'], note: 'n'.repeat(16 * 1024 + 1) } }),
      ).toEqual([['answers', 'Auth method', 'note']]);
      const exactly16k = `${'中'.repeat(5461)}a`; // 16384 bytes
      expect(normalizeAnswers([auth], { 'Auth method': { other: exactly16k } })[0]).toMatchObject({
        other: exactly16k,
      });
    });

    it('refuses wrong types, each with its path', () => {
      expect(
        issuesOf(both, {
          'Auth method': { selected: 'JWT', other: 7, note: null, colour: 'red' },
          Features: 42,
        }),
      ).toEqual([
        {
          path: ['answers', 'Auth method', 'colour'],
          message: 'Unknown field; an answer has "selected", "other" and "note", or only "skipped": true',
        },
        {
          path: ['answers', 'Auth method', 'selected'],
          message: 'Expected an array of labels; got a string',
        },
        { path: ['answers', 'Auth method', 'other'], message: 'Expected a string; got a number' },
        { path: ['answers', 'Auth method', 'note'], message: 'Expected a string; got null' },
        {
          path: ['answers', 'Features'],
          message:
            'Expected a label, an array of labels, {"selected": […], "other"?, "note"?} or {"skipped": true}; got a number',
        },
      ]);
    });

    it('refuses labels that are not strings', () => {
      expect(issuesOf([features], { Features: ['Caching', 3, { label: 'Metrics' }] })).toEqual([
        { path: ['answers', 'Features', 1], message: 'Expected a label; got a number' },
        { path: ['answers', 'Features', 2], message: 'Expected a label; got an object' },
      ]);
    });
  });

  describe('hostile input', () => {
    it.each([
      ['null', null],
      ['a number', 42],
      ['undefined', undefined],
      ['a boolean', true],
      ['a Map', new Map([['Auth method', 'JWT']])],
      ['a function', () => 'JWT'],
    ])('refuses %s as the answers', (name, answers) => {
      expect(issuesOf(both, answers)).toEqual([
        {
          path: ['answers'],
          message: `Expected an object keyed by question header, an array in question order, or a label string; got ${
            name === 'a Map' ? 'an object' : name
          }`,
        },
      ]);
    });

    it('treats a __proto__ key from JSON.parse as an unknown key and pollutes nothing', () => {
      const answers = JSON.parse(
        '{"__proto__": {"polluted": true}, "Auth method": {"__proto__": {"skipped": true}}}',
      );
      expect(paths([auth], answers)).toEqual([
        ['answers', '__proto__'],
        ['answers', 'Auth method', '__proto__'],
      ]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).skipped).toBeUndefined();
    });

    it('ignores inherited fields: only own properties count', () => {
      const inherited = Object.create({ selected: ['JWT'] });
      expect(issuesOf([auth], { 'Auth method': inherited })[0]!.message).toContain('got an object');
    });

    it('reports holes in arrays', () => {
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      expect(paths([features], { Features: ['Caching', , 'Metrics'] })).toEqual([['answers', 'Features', 1]]);
      expect(paths(both, new Array(2))).toEqual([
        ['answers', 0],
        ['answers', 1],
      ]);
    });

    it('does not walk huge arrays', () => {
      const huge = new Array(10_000_000);
      expect(paths([features], { Features: huge })).toEqual([['answers', 'Features']]);
      expect(paths([features], huge)).toEqual([['answers'], ['answers', 0]]);
    });

    it('caps the list of issues', () => {
      const junk = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`junk${i}`, i]));
      const issues = issuesOf([auth], { ...junk, 'Auth method': 'JWT' });
      expect(issues).toHaveLength(21);
      expect(issues[20]).toEqual({ path: ['answers'], message: '…and 80 more problems' });
    });

    it('turns a throwing getter or proxy into an AnswerError', () => {
      const getter = {
        get 'Auth method'() {
          throw new Error('boom');
        },
      };
      expect(issuesOf([auth], getter)).toEqual([{ path: ['answers'], message: 'Could not be read (boom)' }]);
      const proxy = new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('no keys');
          },
        },
      );
      expect(paths([auth], proxy)).toEqual([['answers']]);
      const sneaky = new Error();
      Object.defineProperty(sneaky, 'message', {
        get() {
          throw sneaky;
        },
      });
      const rethrowing = {
        get 'Auth method'() {
          throw sneaky;
        },
      };
      expect(issuesOf([auth], rethrowing)).toEqual([
        { path: ['answers'], message: 'Could not be read (reading it threw)' },
      ]);
    });

    it('does not change the answers it reads', () => {
      const answers = {
        Features: { selected: ['Metrics', 'Caching'], other: ' x ' },
        'Auth method': ['JWT'],
      };
      const copy = structuredClone(answers);
      normalizeAnswers(both, answers);
      expect(answers).toEqual(copy);
    });
  });
});

describe('sameAnswers', () => {
  it("treats 'JWT', ['JWT'] and { selected: ['JWT'] } as the same answer", () => {
    const reference = normalizeAnswers([auth], 'JWT');
    for (const answers of [
      { 'Auth method': 'JWT' },
      { 'Auth method': ['JWT'] },
      { auth: { selected: ['JWT'] } },
      [{ selected: ['JWT'], note: ' ' }],
    ]) {
      expect(sameAnswers(reference, normalizeAnswers([auth], answers))).toBe(true);
      expect(normalizeAnswers([auth], answers)).toEqual(reference);
    }
  });

  it('ignores the order labels were given in', () => {
    expect(
      sameAnswers(
        normalizeAnswers([features], [['Metrics', 'Caching']]),
        normalizeAnswers([features], [['Caching', 'Metrics']]),
      ),
    ).toBe(true);
  });

  it('tells different answers apart', () => {
    const jwt = normalizeAnswers([auth], 'JWT');
    expect(sameAnswers(jwt, normalizeAnswers([auth], 'Sessions'))).toBe(false);
    expect(sameAnswers(jwt, normalizeAnswers([auth], [{ selected: ['JWT'], note: 'n' }]))).toBe(false);
    expect(sameAnswers(jwt, normalizeAnswers([auth], [{ skipped: true }]))).toBe(false);
    expect(
      sameAnswers(normalizeAnswers([auth], [{ other: 'a' }]), normalizeAnswers([auth], [{ other: 'b' }])),
    ).toBe(false);
    expect(sameAnswers(jwt, [])).toBe(false);
  });
});

describe('free-text questions (no options)', () => {
  it('takes a plain string or { other }, normalised to the same record, text trimmed', () => {
    const expected = [{ questionId: 'box', selected: [], other: 'B2-14' }];
    expect(normalizeAnswers([box], 'B2-14')).toEqual(expected);
    expect(normalizeAnswers([box], { Box: '  B2-14 ' })).toEqual(expected);
    expect(normalizeAnswers([box], { Box: { other: 'B2-14' } })).toEqual(expected);
    expect(normalizeAnswers([box], ['B2-14'])).toEqual(expected);
    expect(
      sameAnswers(normalizeAnswers([box], 'B2-14'), normalizeAnswers([box], { box: { other: 'B2-14' } })),
    ).toBe(true);
    expect(normalizeAnswers([box], { Box: { other: 'B2-14', note: 'top shelf' } })).toEqual([
      { questionId: 'box', selected: [], other: 'B2-14', note: 'top shelf' },
    ]);
    expect(normalizeAnswers([box], { Box: { skipped: true } })).toEqual([
      { questionId: 'box', skipped: true },
    ]);
  });

  it('refuses empty text, `selected`, and anything that is not text', () => {
    expect(issuesOf([box], '   ')).toEqual([
      {
        path: ['answers'],
        message: 'Type an answer (it must not be empty), or skip the question with {"skipped": true}',
      },
    ]);
    expect(issuesOf([box], { Box: { selected: ['B2'] } }).map((issue) => issue.path)).toEqual([
      ['answers', 'Box', 'selected'],
    ]);
    expect(issuesOf([box], { Box: 42 })[0]!.message).toMatch(/Expected the typed answer as a string/);
    expect(issuesOf([box], { Box: { other: '' } })[0]!.message).toMatch(/must not be empty/);
  });
});

describe('a plain list answers a single multi-select question', () => {
  it("takes ['Caching', 'Logging'] as that question's labels", () => {
    expect(normalizeAnswers([features], ['Caching', 'Logging'])).toEqual([
      { questionId: 'q1', selected: ['Caching', 'Logging'] },
    ]);
    expect(normalizeAnswers([features], ['Logging'])).toEqual([{ questionId: 'q1', selected: ['Logging'] }]);
    expect(issuesOf([features], ['Caching', 'Nope']).map((issue) => issue.path)).toEqual([['answers', 1]]);
    // With two questions a list is positional, as before.
    expect(issuesOf(both, ['Caching', 'Logging']).map((issue) => issue.path)).toEqual([['answers', 0]]);
  });
});

describe('control characters in answers', () => {
  const nul = (subject: string) =>
    `The answer to "${subject}" contains the control character U+0000; only plain text is accepted (tab and newline are allowed)`;

  it('refuses a NUL in free text with ANSWER_INVALID, naming the question and U+0000', () => {
    expect(issuesOf([box], 'B2\u0000-14')).toEqual([
      { path: ['answers'], message: nul('Which box number?') },
    ]);
    expect(issuesOf([box], { Box: { other: 'B2\u0000' } })).toEqual([
      { path: ['answers', 'Box', 'other'], message: nul('Which box number?') },
    ]);
  });

  it('refuses them in labels, other and note, in every answer form', () => {
    const question = auth.question;
    expect(issuesOf([auth], 'JWT\u0000')).toEqual([{ path: ['answers'], message: nul(question) }]);
    expect(paths([features], { Features: ['Caching', 'Logging\u001b'] })).toEqual([
      ['answers', 'Features', 1],
    ]);
    expect(paths([auth], { 'Auth method': { other: 'mTLS\u0007' } })).toEqual([
      ['answers', 'Auth method', 'other'],
    ]);
    expect(paths([auth], { 'Auth method': { selected: ['JWT'], note: 'soon\u009b' } })).toEqual([
      ['answers', 'Auth method', 'note'],
    ]);
    expect(issuesOf([auth], { 'Auth method': { other: 'x\u007fy' } })[0]!.message).toMatch(/U\+007F/);
    expect(issuesOf([box], 'a\rb')[0]!.message).toMatch(/U\+000D/);
  });

  it('accepts tab and newline in free text', () => {
    expect(normalizeAnswers([box], { Box: { other: 'B2\tshelf 1\nback row', note: 'a\tb' } })).toEqual([
      { questionId: 'box', selected: [], other: 'B2\tshelf 1\nback row', note: 'a\tb' },
    ]);
  });
});
