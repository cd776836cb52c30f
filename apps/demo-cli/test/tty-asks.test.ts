/**
 * Issues 13 and 14 in a real terminal (tmux, see `terminal.ts`): `record_thaw`'s box form answered
 * with the arrow keys (its `execute` runs once, its `resume` once), and a timed question whose
 * card counts down and closes by itself when time is up, the run going on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cleanup, freezerOf, runIdOf, tempDir, toolResults, transcript } from './helpers.js';
import { hasTmux, inCI, open, quitAtPrompt } from './terminal.js';

afterAll(cleanup);

describe.skipIf(!hasTmux && !inCI)('tools that ask and timed questions, in a real terminal (tmux)', () => {
  it('answers record_thaw’s box form with the arrow keys; execute ran once, resume once', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} "Thaw one HEK293T vial"`, dir);
    await terminal.waitFor('enter: Approve');
    terminal.keys('Enter');
    const card = await terminal.waitFor('❯ (•) 1. Box 2 · D1, D2, D3');
    expect(card).toMatch(/╭─ record_thaw ─+ Input needed ─╮/);
    expect(card).toContain('│ 2 boxes hold HEK293T. Which box should the vial come from?');
    expect(card).toContain('│   ( ) 2. Box 6 · A1, A2');
    expect(card).toContain('│   ✗ Cancel the form (the agent is told, and goes on)');
    expect(card).toContain('↑↓ move · enter confirm · type on the text row · esc: answer later');
    terminal.keys('Down');
    await terminal.waitFor('❯ ( ) 2. Box 6 · A1, A2');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Box › Box 6 · A1, A2');
    await terminal.waitFor('Agent › Done: thawed 1 vial of HEK293T from box 6 (A1), 4 left.');
    const end = await quitAtPrompt(terminal);
    const freezer = await freezerOf(dir, runIdOf(end));
    expect(freezer.audit?.map((entry) => entry.step)).toEqual(['execute', 'resume']);
  });

  it('counts the question down, keeps typed text while it ticks, and closes it when time is up', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} --lang zh-CN --timeout-seconds 4`, dir);
    await terminal.waitFor('❯ (•) 1. K562（推荐）');
    await terminal.waitFor('剩余回答时间：0:03');
    terminal.keys('0');
    terminal.type('Hel');
    await terminal.waitFor('剩余回答时间：0:02');
    expect(terminal.visible()).toContain('0. 其他（自定义输入）: Hel');
    await terminal.waitFor('⧗ 细胞系 › 已超时');
    await terminal.waitFor('提问超时，Agent 将继续执行');
    await terminal.waitFor('没有得到回答，我不会解冻任何样品。');
    await terminal.waitFor('你 ›');
    terminal.keys('Enter');
    const end = await terminal.waitFor('EXIT=0');
    // The card was replaced by its one-line summary, not left half-drawn.
    expect(end).not.toContain('剩余回答时间');
    const [result] = toolResults(await transcript(dir, runIdOf(end)), 'AskUserQuestion');
    expect(JSON.parse(result!)).toMatchObject({ ok: false, error_code: 'question_timeout' });
  });
});
