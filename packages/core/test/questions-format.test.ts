import { describe, expect, it } from 'vitest';
import { formatAnswersResult, formatDefaultedResult, normalizeAnswers } from '../src/questions/index.js';
import type { Question } from '../src/types.js';

function choice(id: string, header: string, labels: string[], multiSelect = false): Question {
  return {
    id,
    question: `${header}?`,
    header,
    options: labels.map((label) => ({ label, description: '' })),
    multiSelect,
  };
}

const auth = choice('q0', 'Auth method', ['OAuth 2.0 (Recommended)', 'JWT']);
const features = choice('q1', 'Features', ['Caching', 'Logging', 'Metrics'], true);
const both = [auth, features];

function result(questions: Question[], answers: unknown): string {
  return formatAnswersResult(questions, normalizeAnswers(questions, answers));
}

describe('formatAnswersResult', () => {
  it('gives one label per single-select question, keyed by header', () => {
    expect(result([auth], 'JWT')).toBe('{"answers":{"Auth method":"JWT"}}');
  });

  it('joins several labels with a comma, in option order', () => {
    expect(result(both, { 'Auth method': 'JWT', Features: ['Metrics', 'Caching'] })).toBe(
      '{"answers":{"Auth method":"JWT","Features":"Caching, Metrics"}}',
    );
  });

  it('writes free text as Other (custom: …)', () => {
    expect(result([auth], { 'Auth method': { other: 'Passkeys' } })).toBe(
      '{"answers":{"Auth method":"Other (custom: Passkeys)"}}',
    );
  });

  it('puts free text after the selected labels', () => {
    expect(result([features], { Features: { selected: ['Logging', 'Caching'], other: 'Tracing' } })).toBe(
      '{"answers":{"Features":"Caching, Logging, Other (custom: Tracing)"}}',
    );
  });

  it('appends a note', () => {
    expect(result([auth], { 'Auth method': { selected: ['JWT'], note: 'rotate keys monthly' } })).toBe(
      '{"answers":{"Auth method":"JWT (note: rotate keys monthly)"}}',
    );
    expect(result([features], { Features: { other: 'Tracing', note: 'later' } })).toBe(
      '{"answers":{"Features":"Other (custom: Tracing) (note: later)"}}',
    );
  });

  it('says (skipped) for a skipped question, never an empty string', () => {
    expect(result(both, { 'Auth method': { skipped: true }, Features: 'Caching' })).toBe(
      '{"answers":{"Auth method":"(skipped)","Features":"Caching"}}',
    );
  });

  it('escapes quotes and newlines as JSON', () => {
    expect(result([auth], { 'Auth method': { other: 'say "hi"\nthen go' } })).toBe(
      '{"answers":{"Auth method":"Other (custom: say \\"hi\\"\\nthen go)"}}',
    );
  });

  it('keeps question order even for headers that look like numbers', () => {
    const plan = choice('q0', 'Plan', ['Free', 'Pro']);
    const year = choice('q1', '2024', ['Yes', 'No']);
    const text = result([plan, year], { Plan: 'Pro', 2024: 'No' });
    expect(text).toBe('{"answers":{"Plan":"Pro","2024":"No"}}');
    expect(JSON.parse(text)).toEqual({ answers: { Plan: 'Pro', 2024: 'No' } });
  });

  it('keeps a header named __proto__ as an ordinary key', () => {
    const odd = choice('q0', '__proto__', ['A', 'B']);
    expect(result([odd], 'A')).toBe('{"answers":{"__proto__":"A"}}');
  });
});

describe('formatDefaultedResult', () => {
  it('takes each question’s first option and says it was chosen by default', () => {
    expect(formatDefaultedResult(both, '2025-01-02T03:04:05.000Z')).toBe(
      '{"answers":{' +
        '"Auth method":"OAuth 2.0 (Recommended) (chosen by default: no answer before 2025-01-02T03:04:05.000Z)",' +
        '"Features":"Caching (chosen by default: no answer before 2025-01-02T03:04:05.000Z)"}}',
    );
  });
});

describe('free-text results', () => {
  const box = { id: 'box', question: 'Which box number?', header: 'Box', options: [], multiSelect: false };

  it('gives the text itself, not Other (custom: …), with a note appended', () => {
    expect(formatAnswersResult([box], [{ questionId: 'box', selected: [], other: 'B2-14' }])).toBe(
      '{"answers":{"Box":"B2-14"}}',
    );
    expect(
      formatAnswersResult([box], [{ questionId: 'box', selected: [], other: 'B2-14', note: 'top' }]),
    ).toBe('{"answers":{"Box":"B2-14 (note: top)"}}');
  });

  it('has no default to take at expiry', () => {
    expect(formatDefaultedResult([box], '2026-01-01T00:00:00.000Z')).toBe(
      '{"answers":{"Box":"(no answer before 2026-01-01T00:00:00.000Z)"}}',
    );
  });
});
