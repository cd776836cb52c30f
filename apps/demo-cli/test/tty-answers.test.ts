/**
 * Answers other than a choice, in a real terminal (tmux, see `terminal.ts`): a free-text question
 * answered on its text row (an empty one is refused), the Skip row, and the Cancel row, which
 * tells the model `question_cancelled` while the run goes on.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cleanup, runIdOf, tempDir, toolResults, transcript } from './helpers.js';
import { approveAndQuit, hasTmux, inCI, open } from './terminal.js';

afterAll(cleanup);

const FREE_TEXT = {
  questions: [
    { question: 'Where should the new vials go?', header: 'Position', options: [] },
    { question: 'Anything to add?', header: 'Remarks', options: [] },
  ],
};

describe.skipIf(!hasTmux && !inCI)('answers other than a choice, in a real terminal (tmux)', () => {
  it('answers a free-text question on its text row, refuses an empty one, and skips another', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(FREE_TEXT));
    const terminal = open(`node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    const card = await terminal.waitFor('│ ❯ Answer: ');
    expect(card).toContain('│ Type your answer.');
    expect(card).toContain('│   ↷ Skip this question');
    expect(card).toContain('│   ✗ Cancel the question (the agent is told, and goes on)');
    expect(card).not.toContain('Other (custom input)');
    expect(card).not.toContain('1. ');
    terminal.keys('Enter');
    await terminal.waitFor('✗ Type an answer, or choose Skip.');
    terminal.type('B2-14');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Position › “B2-14”');
    await terminal.waitFor('╭─ Remarks ');
    terminal.keys('Down', 'Enter');
    await terminal.waitFor('↷ Remarks › skipped');
    await terminal.waitFor('EXIT=0');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe(
      '{"answers":{"Position":"B2-14","Remarks":"(skipped)"}}\n',
    );
  });

  it('skips a question with options on the Skip row; the other question is still answered', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI}`, dir);
    await terminal.waitFor('❯ (•) 1. K562 (Recommended)');
    terminal.keys('Enter');
    await terminal.waitFor('╭─ Follow-ups ');
    terminal.keys('Up', 'Up');
    await terminal.waitFor('❯ ↷ Skip this question');
    terminal.keys('Enter');
    await terminal.waitFor('↷ Follow-ups › skipped');
    expect(await approveAndQuit(terminal, dir)).toEqual([
      '{"answers":{"Cell line":"K562 (Recommended)","Follow-ups":"(skipped)"}}',
    ]);
  });

  it('shows which sub-agent asks and requests approval, and takes its free-text answer', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} "Store 2 new vials of HeLa"`, dir);
    const card = await terminal.waitFor('│ ❯ Answer: ');
    expect(card).toContain('│ Asked by ln2-inventory › storage ');
    terminal.type('B2-14, B2-15');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Position › “B2-14, B2-15”');
    const approval = await terminal.waitFor('enter: Approve');
    expect(approval).toContain('│ Requested by ln2-inventory › storage ');
    expect(approval).toContain('│ Tool    record_freeze');
    terminal.keys('Enter');
    await terminal.waitFor('Agent › The storage agent reports: Stored 2 vials of HeLa at B2-14, B2-15.');
    terminal.keys('Enter');
    await terminal.waitFor('EXIT=0');
  });

  it('cancels the question on the Cancel row: the model is told question_cancelled and goes on', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} --lang zh-CN`, dir);
    const card = await terminal.waitFor('❯ (•) 1. K562（推荐）');
    expect(card).toContain('│   ↷ 跳过此问题');
    terminal.keys('Up');
    await terminal.waitFor('❯ ✗ 取消提问（会告知 Agent，Agent 将继续执行）');
    terminal.keys('Enter');
    await terminal.waitFor('✗ 细胞系 › 已取消');
    await terminal.waitFor('没有得到回答，我不会解冻任何样品。');
    await terminal.waitFor('你 ›');
    terminal.keys('Enter');
    const end = await terminal.waitFor('EXIT=0');
    const [result] = toolResults(await transcript(dir, runIdOf(end)), 'AskUserQuestion');
    expect(JSON.parse(result!)).toMatchObject({ ok: false, error_code: 'question_cancelled' });
  });
});
