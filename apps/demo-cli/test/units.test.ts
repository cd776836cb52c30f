/** The pure pieces: line parsing, answer read-back, text measurement and the cards. */
import type { Question } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { commandName, translator } from '../src/i18n.js';
import { parseLineChoice } from '../src/prompt-lines.js';
import { renderApprovalCard, renderQuestionCard } from '../src/render.js';
import { guessCellLine, parseAnswerText } from '../src/scenario/script.js';
import { displayWidth, wrap } from '../src/text.js';
import { uiFor } from './helpers.js';

const t = translator('en', {});
const single: Question = {
  id: 'q0',
  question: 'Which line?',
  header: 'Cell line',
  options: [
    { label: 'K562 (Recommended)', description: 'parental' },
    { label: 'K562-dTAG', description: 'degron' },
    { label: 'K562-RTCB', description: 'knockout' },
  ],
  multiSelect: false,
};
const multi: Question = { ...single, header: 'Follow-ups', multiSelect: true };

describe('parseLineChoice', () => {
  it('takes a number, several numbers for multi-select, and an empty line as the first option', () => {
    expect(parseLineChoice(single, '2', t)).toEqual({ ok: true, selected: ['K562-dTAG'], wantsOther: false });
    expect(parseLineChoice(multi, '3, 1', t)).toEqual({
      ok: true,
      selected: ['K562 (Recommended)', 'K562-RTCB'],
      wantsOther: false,
    });
    expect(parseLineChoice(single, '  ', t)).toEqual({
      ok: true,
      selected: ['K562 (Recommended)'],
      wantsOther: false,
    });
  });

  it('reads 0 and "other" as free text to follow, also next to labels in multi-select', () => {
    expect(parseLineChoice(single, '0', t)).toEqual({ ok: true, selected: [], wantsOther: true });
    expect(parseLineChoice(single, 'OTHER', t)).toEqual({ ok: true, selected: [], wantsOther: true });
    expect(parseLineChoice(multi, '1,0', t)).toEqual({
      ok: true,
      selected: ['K562 (Recommended)'],
      wantsOther: true,
    });
  });

  it('accepts an exact label', () => {
    expect(parseLineChoice(single, 'k562-rtcb', t)).toEqual({
      ok: true,
      selected: ['K562-RTCB'],
      wantsOther: false,
    });
  });

  it('reads numbers as rows, also when the labels are numbers, and past nine options', () => {
    const numbered: Question = {
      ...single,
      options: [
        { label: '2', description: '' },
        { label: '1', description: '' },
      ],
    };
    expect(parseLineChoice(numbered, '1', t)).toEqual({ ok: true, selected: ['2'], wantsOther: false });
    expect(parseLineChoice(numbered, '2', t)).toEqual({ ok: true, selected: ['1'], wantsOther: false });
    const many: Question = {
      ...multi,
      options: Array.from({ length: 12 }, (_, i) => ({ label: `Box ${i + 1}`, description: '' })),
    };
    expect(parseLineChoice(many, '10, 12', t)).toEqual({
      ok: true,
      selected: ['Box 10', 'Box 12'],
      wantsOther: false,
    });
    expect(parseLineChoice(many, '13', t)).toEqual({
      ok: false,
      message: t('notAnOption', { input: '13', max: 12 }),
    });
  });

  it('refuses numbers out of range, words, and several answers to a single-select question', () => {
    expect(parseLineChoice(single, '4', t)).toEqual({
      ok: false,
      message: t('notAnOption', { input: '4', max: 3 }),
    });
    expect(parseLineChoice(multi, '1,x', t)).toEqual({
      ok: false,
      message: t('notAnOption', { input: 'x', max: 3 }),
    });
    expect(parseLineChoice(single, '1,3', t)).toEqual({ ok: false, message: t('singleOnly') });
    expect(parseLineChoice(single, '1,0', t)).toEqual({ ok: false, message: t('singleOnly') });
  });
});

describe('the scripted model’s reading of answers', () => {
  it('reads back labels, Other text and notes as core formats them', () => {
    expect(parseAnswerText('K562-dTAG')).toEqual({ labels: ['K562-dTAG'], skipped: false });
    expect(parseAnswerText('Mycoplasma test, Other (custom: label the flask) (note: today)')).toEqual({
      labels: ['Mycoplasma test'],
      other: 'label the flask',
      note: 'today',
      skipped: false,
    });
    expect(parseAnswerText('(skipped)')).toEqual({ labels: [], skipped: true });
  });

  it('finds the cell line a message is about', () => {
    expect(guessCellLine('Thaw one K562 vial')).toBe('K562');
    expect(guessCellLine('I need k562-dtag cells')).toBe('K562-dTAG');
    expect(guessCellLine('帮我解冻一支 HeLa')).toBe('HeLa');
    expect(guessCellLine('thaw some Jurkat E6-1')).toBe('E6-1');
  });
});

describe('text measurement', () => {
  it('counts CJK characters as two columns and colour codes as none', () => {
    expect(displayWidth('细胞系 K562')).toBe(11);
    expect(displayWidth('\u001b[36mK562\u001b[39m')).toBe(4);
  });

  it('wraps at spaces, and between CJK characters', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('库存中有三种细胞系', 8)).toEqual(['库存中有', '三种细胞', '系']);
  });
});

describe('cards', () => {
  it('draws the question card with its header, options, descriptions and 0. Other', () => {
    const card = renderQuestionCard(uiFor('en'), single, { index: 0, total: 2 });
    expect(card.split('\n')).toEqual([
      '╭─ Cell line ───────────────────────────────────────── Agent Question 1/2 ─╮',
      '│ Which line?                                                              │',
      '│ Choose one.                                                              │',
      '│                                                                          │',
      '│   1. K562 (Recommended)                                                  │',
      '│      parental                                                            │',
      '│   2. K562-dTAG                                                           │',
      '│      degron                                                              │',
      '│   3. K562-RTCB                                                           │',
      '│      knockout                                                            │',
      '│   0. Other (custom input)                                                │',
      '╰──────────────────────────────────────────────────────────────────────────╯',
    ]);
  });

  it('keeps the box aligned with Chinese text', () => {
    const card = renderQuestionCard(
      uiFor('zh-CN'),
      { ...single, header: '细胞系', question: '库存中有三种，你需要哪个？' },
      { index: 0, total: 1 },
    );
    const widths = new Set(card.split('\n').map(displayWidth));
    expect(widths).toEqual(new Set([76]));
    expect(card).toContain('0. 其他（自定义输入）');
  });

  it('marks the cursor, the choices and the text rows in the live form', () => {
    const view = { cursor: 3, chosen: new Set([0, 3]), texts: new Map([[3, 'HeLa']]) };
    const card = renderQuestionCard(uiFor('en'), multi, { index: 1, total: 2 }, view);
    expect(card).toContain('│   [x] 1. K562 (Recommended)');
    expect(card).toContain('│   [ ] 2. K562-dTAG');
    expect(card).toContain('│ ❯ [x] 0. Other (custom input): HeLa_');
    expect(card).toContain('Note (optional): ');
    expect(card).toContain('space toggle');
  });

  it('names the agent that asked when it is a sub-agent or was handed the run, and no one for the top agent', () => {
    const ui = uiFor('zh-CN');
    const top = renderQuestionCard(ui, single, { index: 0, total: 1, agentPath: ['ln2-inventory'] });
    expect(top).not.toContain('提问者');
    const handedTo = renderQuestionCard(uiFor('en'), single, { index: 0, total: 1, agentPath: ['lab-desk'] });
    expect(handedTo.split('\n')[1]).toMatch(/^│ Asked by lab-desk +│$/);
    const nested = renderQuestionCard(ui, single, { index: 0, total: 1, agentPath: ['lead', 'researcher'] });
    expect(nested.split('\n')[1]).toMatch(/^│ 提问者：lead › researcher +│$/);
    const approval = renderApprovalCard(
      uiFor('en'),
      { toolName: 't', input: {} },
      { agentPath: ['a', 'b', 'c'] },
    );
    expect(approval.split('\n')[1]).toMatch(/^│ Requested by a › b › c +│$/);
  });

  it('draws the approval card with tool, reason and input', () => {
    const card = renderApprovalCard(uiFor('en'), {
      toolName: 'record_thaw',
      input: { cellLine: 'K562', vials: 1 },
      reason: 'Takes 1 vial.',
    });
    expect(card.split('\n').slice(0, 7)).toEqual([
      '╭─ Approval needed ────────────────────────────────────────────────────────╮',
      '│ Tool    record_thaw                                                      │',
      '│ Reason  Takes 1 vial.                                                    │',
      '│ Input   {                                                                │',
      '│           "cellLine": "K562",                                            │',
      '│           "vials": 1                                                     │',
      '│         }                                                                │',
    ]);
  });
});

describe('resume hints', () => {
  it('name the command the user can actually run: npm run demo -- when started by the root script', () => {
    expect(translator('en', { npm_lifecycle_event: 'demo' })('resumeHint', { runId: 'run_x' })).toBe(
      'Resume with: npm run demo -- resume run_x',
    );
    expect(translator('en', {})('resumeHint', { runId: 'run_x' })).toBe(
      'Resume with: turnkit-demo resume run_x',
    );
    expect(commandName({ npm_lifecycle_event: 'start' })).toBe('turnkit-demo');
  });
});
