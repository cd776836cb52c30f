import { describe, expect, it } from 'vitest';
import { TurnkitError } from '../src/errors.js';
import {
  DEFAULT_QUESTION_LIMITS,
  defaultQuestionDescription,
  parseQuestionInput,
  type QuestionLimits,
  questionParametersSchema,
  resolveQuestionLimits,
} from '../src/questions/index.js';

const limits = DEFAULT_QUESTION_LIMITS;

const authQuestion = {
  question: 'Which authentication method should we use?',
  header: 'Auth method',
  options: [
    { label: 'OAuth 2.0', description: 'Industry standard, supports social login' },
    { label: 'JWT', description: 'Stateless tokens, good for APIs' },
  ],
  multiSelect: false,
};

function question(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { question: `Question ${index}?`, header: `H${index}`, options: ['A', 'B'], ...overrides };
}

function parse(input: unknown, custom: QuestionLimits = limits) {
  return parseQuestionInput(JSON.stringify(input), custom);
}

/** The issue lines of a failed parse (everything after `Error: Validation failed`). */
function issues(input: unknown, custom: QuestionLimits = limits): string[] {
  const result = parse(input, custom);
  if (result.ok) throw new Error('expected the input to be refused');
  const [first, ...lines] = result.message.split('\n');
  expect(first).toBe('Error: Validation failed');
  return lines;
}

describe('parseQuestionInput', () => {
  describe('dialects and defaults', () => {
    it('accepts the canonical dialect and normalises it', () => {
      expect(parse({ questions: [authQuestion] })).toEqual({
        ok: true,
        questions: [{ id: 'q0', ...authQuestion }],
      });
    });

    it('accepts plain-string options, with an empty description', () => {
      const result = parse({ questions: [question(0, { options: ['PostgreSQL', 'MongoDB'] })] });
      expect(result.ok && result.questions[0]!.options).toEqual([
        { label: 'PostgreSQL', description: '' },
        { label: 'MongoDB', description: '' },
      ]);
    });

    it('accepts string and object options mixed in one question', () => {
      const result = parse({
        questions: [question(0, { options: ['A', { label: 'B', description: 'b' }] })],
      });
      expect(result.ok && result.questions[0]!.options).toEqual([
        { label: 'A', description: '' },
        { label: 'B', description: 'b' },
      ]);
    });

    it('defaults multiSelect to false and ids to q0, q1… by position', () => {
      const result = parse({ questions: [question(0), question(1, { id: 'db' }), question(2)] });
      expect(result.ok && result.questions.map((q) => [q.id, q.multiSelect])).toEqual([
        ['q0', false],
        ['db', false],
        ['q2', false],
      ]);
    });

    it('reads `multiple` as an alias of multiSelect', () => {
      const result = parse({
        questions: [question(0, { multiple: true }), question(1, { multiSelect: true })],
      });
      expect(result.ok && result.questions.map((q) => q.multiSelect)).toEqual([true, true]);
    });

    it('refuses multiple and multiSelect that contradict each other', () => {
      expect(issues({ questions: [question(0, { multiple: true, multiSelect: false })] })).toEqual([
        '- questions[0].multiple: Contradicts multiSelect; send only multiSelect',
      ]);
    });

    it('keeps an option preview (markdown) as given', () => {
      const preview = '```ts\nconst token = sign(user);\n```';
      const options = [{ label: 'JWT', description: 'Tokens', preview }, 'Sessions'];
      const result = parse({ questions: [question(0, { options })] });
      expect(result.ok && result.questions[0]!.options[0]).toEqual({
        label: 'JWT',
        description: 'Tokens',
        preview,
      });
    });

    it('trims the texts it keeps', () => {
      const result = parse({ questions: [{ question: ' Why? ', header: ' Why ', options: [' A ', 'B'] }] });
      expect(result.ok && result.questions[0]).toMatchObject({
        question: 'Why?',
        header: 'Why',
        options: [{ label: 'A' }, { label: 'B' }],
      });
    });

    it('refuses keys it does not read, naming each and the keys it reads', () => {
      expect(
        issues({
          questions: [question(0, { timeoutMs: 5000, allowOther: true })],
          answers: { H0: 'A' },
        }),
      ).toEqual([
        '- questions[0]: Unknown keys "timeoutMs", "allowOther": this tool does not read them; the keys are "id", "question", "header", "options", "multiSelect" (or "multiple") and "context"',
        '- Unknown key "answers": this tool does not read it; the keys are "questions" (and "to", where the tool offers it)',
      ]);
      expect(
        issues({ questions: [question(0, { options: [{ label: 'A', description: 'a', value: 1 }, 'B'] })] }),
      ).toEqual([
        '- questions[0].options[0]: Unknown key "value": this tool does not read it; the keys are "label", "description" and "preview"',
      ]);
    });

    it("keeps seed 003's context { refs?, hint? } on the question, and refuses other keys in it", () => {
      const context = { refs: ['inventory.csv', 'box 2'], hint: 'Boxes 2 and 6 both hold HeLa' };
      const result = parse({ questions: [question(0, { context })] });
      expect(result.ok && result.questions[0]!.context).toEqual(context);
      expect(result.ok && Object.keys(result.questions[0]!)).toEqual([
        'id',
        'question',
        'header',
        'options',
        'multiSelect',
        'context',
      ]);
      const hintOnly = parse({ questions: [question(0, { context: { hint: ' Look in box 2 ' } })] });
      expect(hintOnly.ok && hintOnly.questions[0]!.context).toEqual({ hint: 'Look in box 2' });
      expect(issues({ questions: [question(0, { context: { files: ['a'] } })] })).toEqual([
        '- questions[0].context: Unknown key "files": this tool does not read it; the keys are "refs" and "hint"',
      ]);
    });

    it('reads a question without an options key as a free-text question, like options []', () => {
      const withoutKey = parse({ questions: [{ question: 'Which box?', header: 'Box' }] });
      const empty = parse({ questions: [{ question: 'Which box?', header: 'Box', options: [] }] });
      expect(withoutKey).toEqual({
        ok: true,
        questions: [{ id: 'q0', question: 'Which box?', header: 'Box', options: [], multiSelect: false }],
      });
      expect(withoutKey).toEqual(empty);
    });

    it('accepts "to" (who answers, for a routed sub-agent) at the top level, and only "user" or "parent"', () => {
      expect(parse({ questions: [question(0)], to: 'parent' }).ok).toBe(true);
      expect(issues({ questions: [question(0)], to: 'boss' })).toEqual([
        '- to: Invalid option: expected one of "user"|"parent"',
      ]);
    });
    it('unwraps a questions array the model sent as a JSON string', () => {
      const result = parse({ questions: JSON.stringify([question(0)]) });
      expect(result.ok && result.questions[0]!.header).toBe('H0');
    });
  });

  describe('limits', () => {
    const cases: [string, unknown, string][] = [
      ['no questions', { questions: [] }, '- questions: Too small: expected array to have >=1 items'],
      [
        'more than 4 questions',
        { questions: [0, 1, 2, 3, 4].map((i) => question(i)) },
        '- questions: Too big: expected array to have <=4 items',
      ],
      [
        'an empty question',
        { questions: [question(0, { question: '' })] },
        '- questions[0].question: Too small: expected string to have >=1 characters',
      ],
      [
        'a question longer than 500 characters',
        { questions: [question(0, { question: 'x'.repeat(501) })] },
        '- questions[0].question: Too big: expected string to have <=500 characters',
      ],
      [
        'a blank header',
        { questions: [question(0, { header: '   ' })] },
        '- questions[0].header: Too small: expected string to have >=1 characters',
      ],
      [
        'a header longer than 12 characters',
        { questions: [question(0, { header: 'Authentication' })] },
        '- questions[0].header: Too big: expected string to have <=12 characters',
      ],
      [
        'a single option',
        { questions: [question(0, { options: ['A'] })] },
        '- questions[0].options: Too small: expected array to have >=2 items, or none ([]) for a free-text question',
      ],
      [
        'more than 4 options',
        { questions: [question(0, { options: ['A', 'B', 'C', 'D', 'E'] })] },
        '- questions[0].options: Too big: expected array to have <=4 items',
      ],
      [
        'an empty label',
        { questions: [question(0, { options: [{ label: '', description: 'd' }, 'B'] })] },
        '- questions[0].options[0].label: Too small: expected string to have >=1 characters',
      ],
      [
        'a label longer than 50 characters',
        { questions: [question(0, { options: ['L'.repeat(51), 'B'] })] },
        '- questions[0].options[0]: Too big: expected string to have <=50 characters',
      ],
      [
        'an empty description in an option object',
        { questions: [question(0, { options: [{ label: 'A', description: '' }, 'B'] })] },
        '- questions[0].options[0].description: Too small: expected string to have >=1 characters',
      ],
      [
        'a description longer than 200 characters',
        { questions: [question(0, { options: [{ label: 'A', description: 'd'.repeat(201) }, 'B'] })] },
        '- questions[0].options[0].description: Too big: expected string to have <=200 characters',
      ],
    ];
    it.each(cases)('rejects %s, with its path', (_, input, line) => {
      expect(issues(input)).toEqual([line]);
    });

    it('accepts every field at its maximum', () => {
      const options = [0, 1, 2, 3].map((i) => ({ label: `${i}`.repeat(50), description: 'd'.repeat(200) }));
      const input = {
        questions: [0, 1, 2, 3].map((i) => ({
          question: `${i}`.repeat(500),
          header: `${i}`.repeat(12),
          options,
        })),
      };
      expect(parse(input).ok).toBe(true);
    });

    it('enforces custom limits', () => {
      const custom = resolveQuestionLimits(
        { maxQuestions: 1, maxOptions: 3, headerMaxLength: 4, labelMaxLength: 2 },
        {},
      );
      expect(issues({ questions: [question(0), question(1)] }, custom)).toEqual([
        '- questions: Too big: expected array to have <=1 items',
      ]);
      expect(
        issues({ questions: [question(0, { header: 'Fruit', options: ['Apple', 'B'] })] }, custom),
      ).toEqual([
        '- questions[0].header: Too big: expected string to have <=4 characters',
        '- questions[0].options[0]: Too big: expected string to have <=2 characters',
      ]);
      expect(issues({ questions: [question(0, { options: ['A', 'B', 'C', 'D'] })] }, custom)).toEqual([
        '- questions[0].options: Too big: expected array to have <=3 items',
      ]);
    });

    it('reports only the count when there are too many items, without reading them', () => {
      const many = Array.from({ length: 1000 }, () => ({ header: 'x'.repeat(99) }));
      expect(issues({ questions: many })).toEqual(['- questions: Too big: expected array to have <=4 items']);
    });
  });

  describe('uniqueness', () => {
    it('rejects two questions with the same header', () => {
      expect(
        issues({ questions: [question(0, { header: 'Same' }), question(1, { header: 'Same' })] }),
      ).toEqual(['- questions[1].header: Duplicate header (headers key the answers): "Same"']);
    });

    it('rejects two questions with the same text', () => {
      expect(
        issues({ questions: [question(0, { question: 'Why?' }), question(1, { question: 'Why?' })] }),
      ).toEqual(['- questions[1].question: Duplicate question: "Why?"']);
    });

    it('rejects a label used twice within a question, but not across questions', () => {
      const options = [{ label: 'A', description: 'a' }, 'B', { label: 'A', description: 'again' }];
      expect(issues({ questions: [question(0, { options }), question(1)] })).toEqual([
        '- questions[0].options[2].label: Duplicate label within this question: "A"',
      ]);
    });

    it('rejects duplicate ids, also a given id that clashes with a default one', () => {
      expect(issues({ questions: [question(0, { id: 'x' }), question(1, { id: 'x' })] })).toEqual([
        '- questions[1].id: Duplicate id: "x" (questions without an id get q0, q1, … by position)',
      ]);
      expect(issues({ questions: [question(0, { id: 'q1' }), question(1)] })).toEqual([
        '- questions[0].id: Duplicate id: "q1" (questions without an id get q0, q1, … by position)',
      ]);
    });
  });

  describe('error messages', () => {
    it('explains unparsable JSON', () => {
      const result = parseQuestionInput('{"questions": [', limits);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toMatch(
        /^Error: Invalid JSON format\nThe arguments must be one JSON object, \{"questions": \[…\]\}, and they did not parse: .+\.$/,
      );
    });

    it('explains empty arguments', () => {
      expect(parseQuestionInput('  ', limits)).toEqual({
        ok: false,
        message:
          'Error: Invalid JSON format\nThe arguments must be one JSON object, {"questions": […]}, and they were empty.',
      });
    });

    it.each([
      ['an array', [], 'array'],
      ['a string', 'hello', 'string'],
      ['null', null, 'null'],
    ])('refuses JSON that is %s rather than an object', (_, input, received) => {
      expect(issues(input)).toEqual([
        `- Invalid input: expected an object {"questions": […]}, received ${received}`,
      ]);
    });

    it('lists every issue, one line each, in the exact format', () => {
      const input = {
        questions: [
          { question: 'Which one?', header: 'A very long header', options: ['Only'], multiSelect: 'yes' },
          { header: 'B', options: [42, { label: 'X' }] },
        ],
      };
      const result = parse(input);
      expect(!result.ok && result.message).toBe(
        [
          'Error: Validation failed',
          '- questions[0].header: Too big: expected string to have <=12 characters',
          '- questions[0].options: Too small: expected array to have >=2 items, or none ([]) for a free-text question',
          '- questions[0].multiSelect: Invalid input: expected boolean, received string',
          '- questions[1].question: Invalid input: expected string, received undefined',
          '- questions[1].options[0]: Invalid input: expected a label string or an object {"label": …, "description": …}',
          '- questions[1].options[1].description: Invalid input: expected string, received undefined',
        ].join('\n'),
      );
    });

    it('reports a question that is not an object at its own path', () => {
      expect(issues({ questions: [42] })).toEqual([
        '- questions[0]: Invalid input: expected object, received number',
      ]);
    });

    it('reports a missing questions field', () => {
      expect(issues({ question: 'Why?' })).toEqual([
        '- questions: Invalid input: expected array, received undefined',
        '- Unknown key "question": this tool does not read it; the keys are "questions" (and "to", where the tool offers it)',
      ]);
    });
  });

  describe('control characters', () => {
    const withText = (text: string): [string, unknown, string][] => [
      [
        'the question',
        { questions: [question(0, { question: `Which${text}box?` })] },
        'questions[0].question',
      ],
      ['the header', { questions: [question(0, { header: `Bo${text}x` })] }, 'questions[0].header'],
      [
        'a plain label',
        { questions: [question(0, { options: [`A${text}`, 'B'] })] },
        'questions[0].options[0]',
      ],
      [
        'a label',
        { questions: [question(0, { options: [{ label: `A${text}`, description: 'a' }, 'B'] })] },
        'questions[0].options[0].label',
      ],
      [
        'a description',
        { questions: [question(0, { options: [{ label: 'A', description: `a${text}a` }, 'B'] })] },
        'questions[0].options[0].description',
      ],
      [
        'a preview',
        {
          questions: [
            question(0, { options: [{ label: 'A', description: 'a', preview: `# a${text}` }, 'B'] }),
          ],
        },
        'questions[0].options[0].preview',
      ],
      [
        'a context ref',
        { questions: [question(0, { context: { refs: [`r${text}`] } })] },
        'questions[0].context.refs[0]',
      ],
      [
        'the context hint',
        { questions: [question(0, { context: { hint: `h${text}h` } })] },
        'questions[0].context.hint',
      ],
    ];

    it.each(withText('\u0000'))('refuses a NUL in %s, naming its path and U+0000', (_, input, path) => {
      expect(issues(input)).toEqual([
        `- ${path}: Contains the control character U+0000; write plain text (tab and newline are allowed)`,
      ]);
    });

    it.each([
      ['ESC', '\u001b[2J', 'U+001B'],
      ['carriage return', 'a\rb', 'U+000D'],
      ['DEL', '\u007f', 'U+007F'],
      ['C1 CSI', '\u009b', 'U+009B'],
    ])('refuses %s in question text (%j is %s)', (_, text, codePoint) => {
      expect(issues({ questions: [question(0, { question: `Which ${text} box?` })] })).toEqual([
        `- questions[0].question: Contains the control character ${codePoint}; write plain text (tab and newline are allowed)`,
      ]);
    });

    it('accepts tab and newline, and text past the C1 range', () => {
      const result = parse({ questions: [question(0, { question: 'Which box?\n\tBox 2 or 6 — ½?' })] });
      expect(result.ok && result.questions[0]!.question).toBe('Which box?\n\tBox 2 or 6 — ½?');
    });
  });
});

describe('resolveQuestionLimits', () => {
  it('returns the defaults: 4 questions, 4 options, 12, 500, 50, 200 characters', () => {
    expect(resolveQuestionLimits(undefined, {})).toEqual({
      maxQuestions: 4,
      maxOptions: 4,
      headerMaxLength: 12,
      questionMaxLength: 500,
      labelMaxLength: 50,
      descriptionMaxLength: 200,
    });
  });

  it('reads ASK_MAX_QUESTIONS, ASK_MAX_OPTIONS, ASK_HEADER_MAX_LENGTH and ASK_QUESTION_MAX_LENGTH', () => {
    const env = {
      ASK_MAX_QUESTIONS: '2',
      ASK_MAX_OPTIONS: '6',
      ASK_HEADER_MAX_LENGTH: ' 20 ',
      ASK_QUESTION_MAX_LENGTH: '80',
    };
    expect(resolveQuestionLimits({}, env)).toMatchObject({
      maxQuestions: 2,
      maxOptions: 6,
      headerMaxLength: 20,
      questionMaxLength: 80,
    });
  });

  it('ignores environment values that are not usable positive integers', () => {
    const env = {
      ASK_MAX_QUESTIONS: '0',
      ASK_MAX_OPTIONS: '1',
      ASK_HEADER_MAX_LENGTH: '12.5',
      ASK_QUESTION_MAX_LENGTH: 'lots',
    };
    expect(resolveQuestionLimits({}, env)).toEqual(DEFAULT_QUESTION_LIMITS);
    expect(resolveQuestionLimits({}, { ASK_MAX_QUESTIONS: '-3', ASK_MAX_OPTIONS: '' })).toEqual(
      DEFAULT_QUESTION_LIMITS,
    );
  });

  it('prefers explicit limits over the environment over the defaults', () => {
    const env = { ASK_MAX_QUESTIONS: '2', ASK_MAX_OPTIONS: '6' };
    expect(resolveQuestionLimits({ maxQuestions: 3, labelMaxLength: 10 }, env)).toMatchObject({
      maxQuestions: 3,
      maxOptions: 6,
      labelMaxLength: 10,
      headerMaxLength: 12,
    });
  });

  it('reads process.env when no environment is given', () => {
    const before = process.env.ASK_HEADER_MAX_LENGTH;
    process.env.ASK_HEADER_MAX_LENGTH = '7';
    try {
      expect(resolveQuestionLimits().headerMaxLength).toBe(7);
    } finally {
      if (before === undefined) delete process.env.ASK_HEADER_MAX_LENGTH;
      else process.env.ASK_HEADER_MAX_LENGTH = before;
    }
  });

  it('throws CONFIG_INVALID for an explicit limit that cannot work', () => {
    for (const bad of [
      { maxQuestions: 0 },
      { maxOptions: 1 },
      { headerMaxLength: 2.5 },
      { labelMaxLength: Number.NaN },
    ]) {
      expect(() => resolveQuestionLimits(bad, {})).toThrow(TurnkitError);
    }
    expect(() => resolveQuestionLimits({ maxOptions: 1 }, {})).toThrow(
      'Question limit maxOptions must be an integer >= 2, got 1.',
    );
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(resolveQuestionLimits({}, {}))).toBe(true);
  });
});

describe('questionParametersSchema', () => {
  /** Walks into the plain-object schema by property names. */
  function at(value: unknown, ...keys: string[]): Record<string, unknown> {
    return keys.reduce((node, key) => (node as Record<string, unknown>)[key], value) as Record<
      string,
      unknown
    >;
  }

  it('offers the canonical dialect with the limits as JSON Schema bounds', () => {
    const schema = questionParametersSchema(resolveQuestionLimits({ maxQuestions: 2, maxOptions: 3 }, {}));
    expect(at(schema, 'properties', 'questions')).toMatchObject({ type: 'array', minItems: 1, maxItems: 2 });
    const item = at(schema, 'properties', 'questions', 'items');
    expect(item.required).toEqual(['question', 'header', 'options', 'multiSelect']);
    expect(at(item, 'properties', 'header')).toMatchObject({ type: 'string', minLength: 1, maxLength: 12 });
    expect(at(item, 'properties', 'question')).toMatchObject({ maxLength: 500 });
    expect(at(item, 'properties', 'options')).toMatchObject({ maxItems: 3 });
    expect(at(item, 'properties', 'options')).not.toHaveProperty('minItems');
    const option = at(item, 'properties', 'options', 'items');
    expect(option.required).toEqual(['label', 'description']);
    expect(at(option, 'properties', 'label')).toMatchObject({ maxLength: 50 });
    expect(at(option, 'properties', 'description')).toMatchObject({ maxLength: 200 });
    expect(at(item, 'properties', 'multiSelect')).toMatchObject({ type: 'boolean' });
  });

  it('is plain JSON and deterministic (its hash keys snapshots)', () => {
    const schema = questionParametersSchema(limits);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(JSON.stringify(questionParametersSchema(limits))).toBe(JSON.stringify(schema));
  });
});

describe('defaultQuestionDescription', () => {
  it('states the limits it is given', () => {
    const text = defaultQuestionDescription(
      resolveQuestionLimits(
        { maxQuestions: 1, maxOptions: 3, headerMaxLength: 9, questionMaxLength: 99 },
        {},
      ),
    );
    expect(text).toContain('at most 1 question, each with 2 to 3 options');
    expect(text).toContain('at most 9 characters');
    expect(text).toContain('at most 99 characters');
  });

  it('covers when to ask, when not to, the Recommended convention, multiSelect and the automatic Other', () => {
    const text = defaultQuestionDescription(limits);
    for (const phrase of [
      'preferences',
      'ambiguous',
      'real alternatives',
      'Do not ask',
      'reasonable default',
    ]) {
      expect(text).toContain(phrase);
    }
    expect(text).toContain('" (Recommended)"');
    expect(text).toContain('multiSelect');
    expect(text).toContain('Do not add an "Other" option');
    expect(text).toContain('{"answers":{"<header>":"<label>"}}');
  });

  it('tells the model when to ask a free-text question, and what its answer looks like', () => {
    const text = defaultQuestionDescription(limits);
    expect(text).toContain('or none, for free text');
    expect(text).toMatch(/no short list of choices fits, ask a free-text question: options \[\]/);
    expect(text).toContain('Prefer options whenever the likely answers are few');
    expect(text).toContain('the answer to a free-text question is the text itself');
  });

  it('carries an example that the parser accepts', () => {
    const example = /Example: (.+)/.exec(defaultQuestionDescription(limits))![1]!;
    expect(parseQuestionInput(example, limits).ok).toBe(true);
  });
});
