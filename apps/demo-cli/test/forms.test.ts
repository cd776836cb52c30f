/** The pure pieces of tools' forms and countdowns: fields from a JSON Schema, typed text, cards. */
import { describe, expect, it } from 'vitest';
import { translator } from '../src/i18n.js';
import { formFields, formValue, parseFieldText } from '../src/input-form.js';
import { countdownLines, formatCountdown } from '../src/render.js';
import { renderInputCard } from '../src/render-input.js';
import { uiFor } from './helpers.js';

const t = translator('en', {});

const schema = {
  type: 'object',
  properties: {
    box: { type: 'string', enum: ['B2', 'C1'], title: 'Box', description: 'Where the vial is' },
    vials: { type: 'integer', minimum: 1 },
    urgent: { type: 'boolean' },
    note: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['box', 'vials', 'urgent'],
};

describe('formFields', () => {
  it('reads an object schema’s properties in order, with kinds, titles and what is required', () => {
    expect(formFields(schema, 'Value')).toEqual([
      {
        key: 'box',
        title: 'Box',
        description: 'Where the vial is',
        required: true,
        kind: 'enum',
        choices: ['B2', 'C1'],
      },
      { key: 'vials', title: 'vials', description: '', required: true, kind: 'integer', choices: [] },
      { key: 'urgent', title: 'urgent', description: '', required: true, kind: 'boolean', choices: [] },
      { key: 'note', title: 'note', description: '', required: false, kind: 'string', choices: [] },
      { key: 'tags', title: 'tags', description: '', required: false, kind: 'json', choices: [] },
    ]);
  });

  it('falls back to one JSON field for a schema that is not an object of fields', () => {
    expect(formFields({ type: 'array', items: { type: 'number' } }, 'Value')).toEqual([
      { key: null, title: 'Value', description: '', required: true, kind: 'json', choices: [] },
    ]);
  });
});

describe('parseFieldText', () => {
  const [box, vials, urgent, note, tags] = formFields(schema, 'Value');

  it('takes a row number, an exact value or an empty line (the first) for an enum', () => {
    expect(parseFieldText(box!, '2', t)).toEqual({ ok: true, value: 'C1' });
    expect(parseFieldText(box!, 'B2', t)).toEqual({ ok: true, value: 'B2' });
    expect(parseFieldText(box!, '', t)).toEqual({ ok: true, value: 'B2' });
    expect(parseFieldText(box!, '3', t)).toEqual({
      ok: false,
      message: '"3" is not a choice: enter a number from 1 to 2.',
    });
  });

  it('parses numbers, yes/no and JSON, and leaves an empty optional field out', () => {
    expect(parseFieldText(vials!, '2', t)).toEqual({ ok: true, value: 2 });
    expect(parseFieldText(vials!, '2.5', t)).toEqual({ ok: false, message: '"2.5" is not a whole number.' });
    expect(parseFieldText(vials!, '', t)).toMatchObject({ ok: false });
    expect(parseFieldText(urgent!, 'y', t)).toEqual({ ok: true, value: true });
    expect(parseFieldText(urgent!, '否', t)).toEqual({ ok: true, value: false });
    expect(parseFieldText(urgent!, 'maybe', t)).toEqual({ ok: false, message: '"maybe" is not y or n.' });
    expect(parseFieldText(note!, '  ', t)).toEqual({ ok: true, value: undefined });
    expect(parseFieldText(tags!, '["a"]', t)).toEqual({ ok: true, value: ['a'] });
    expect(parseFieldText(tags!, '[a', t)).toMatchObject({ ok: false });
  });

  it('assembles the value from the fields given', () => {
    const fields = formFields(schema, 'Value');
    expect(formValue(fields, ['C1', 1, false, undefined, ['x']])).toEqual({
      box: 'C1',
      vials: 1,
      urgent: false,
      tags: ['x'],
    });
    expect(formValue(formFields({ type: 'number' }, 'Value'), [3])).toBe(3);
  });
});

describe('countdowns', () => {
  it('shows the time left rounded up to the second', () => {
    expect(formatCountdown(299_001)).toBe('5:00');
    expect(formatCountdown(1_000)).toBe('0:01');
    expect(formatCountdown(-5)).toBe('0:00');
    expect(formatCountdown(3_723_000)).toBe('1:02:03');
    expect(countdownLines(uiFor('zh-CN'), 10_000, 0)).toEqual(['剩余回答时间：0:10']);
    expect(countdownLines(uiFor('en'), undefined)).toEqual([]);
  });
});

describe('renderInputCard', () => {
  it('draws the message, the field, its choices, the asker and the time left', () => {
    const [box] = formFields(schema, 'Value');
    const card = renderInputCard(uiFor('en'), { message: 'Which box?', schema }, box!, {
      index: 0,
      total: 5,
      toolName: 'record_thaw',
      agentPath: ['lead', 'storage'],
      deadline: Date.now() + 60_000,
    });
    expect(card).toMatch(/^╭─ record_thaw ─+ Input needed · Field 1\/5 ─╮$/m);
    for (const line of [
      'Requested by lead › storage',
      'Which box?',
      'Box',
      'Where the vial is',
      '  1. B2',
      '  2. C1',
      'Time left to answer: 1:00',
    ]) {
      expect(card).toMatch(new RegExp(`^│ ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +│$`, 'm'));
    }
  });
});
