/**
 * Issues 13 and 14 through piped stdin: `record_thaw` asks mid-execution which box to take (a
 * form, answered in the same process or in a resumed one, in both languages; its `execute` runs
 * once and its `resume` once), and a timed question whose deadline passes while its prompt waits,
 * or before the run is resumed: the CLI says so in the seed's words and the run goes on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanup,
  freezerOf,
  runCli,
  runCliScripted,
  runIdOf,
  tempDir,
  toolResults,
  transcript,
} from './helpers.js';

afterAll(cleanup);

/** The steps of record_thaw the freezer's audit trail saw. */
async function steps(dir: string, runId: string): Promise<string[]> {
  return ((await freezerOf(dir, runId)).audit ?? []).map((entry) => `${entry.tool}.${entry.step}`);
}

describe('record_thaw asks which box, mid-execution (piped)', () => {
  it('shows the form card, takes the chosen box, and runs execute once and resume once', async () => {
    const dir = tempDir();
    const run = await runCli(['Thaw one HEK293T vial'], { input: 'a\n\n7\n2\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '│ Reason  Takes 1 vial of HEK293T out of the freezer; boxes 2 and 6 hold   │',
    );
    expect(run.stdout).toMatch(/╭─ record_thaw ─+ Input needed ─╮/);
    expect(run.stdout).toContain('│ 2 boxes hold HEK293T. Which box should the vial come from?');
    expect(run.stdout).toContain('│ Box ');
    expect(run.stdout).toContain('│   1. Box 2 · D1, D2, D3 ');
    expect(run.stdout).toContain('│   2. Box 6 · A1, A2 ');
    expect(run.stdout).toContain('Or type /cancel to cancel the form.');
    expect(run.stdout).toContain('✗ "7" is not a choice: enter a number from 1 to 2.');
    expect(run.stdout).toContain('Agent › Done: thawed 1 vial of HEK293T from box 6 (A1), 4 left.');
    const runId = runIdOf(run.stdout);
    expect(await steps(dir, runId)).toEqual(['record_thaw.execute', 'record_thaw.resume']);
    expect(JSON.parse(toolResults(await transcript(dir, runId), 'record_thaw')[0]!)).toMatchObject({
      ok: true,
      cellLine: 'HEK293T',
      box: 6,
      positions: ['A1'],
      left: 4,
    });
  });

  it('asks nothing when one box holds the line', async () => {
    const dir = tempDir();
    const run = await runCli(['Thaw one HeLa vial'], { input: 'a\n\n\n', dir });
    expect(run.stdout).toContain('Done: thawed 1 vial of HeLa from box 1 (A1), 2 left.');
    expect(run.stdout).not.toContain('Input needed');
    expect(await steps(dir, runIdOf(run.stdout))).toEqual(['record_thaw.execute']);
  });

  it('leaves the form waiting at end of input; another process fills it in, in Chinese', async () => {
    const dir = tempDir();
    const first = await runCli(['--lang', 'zh-CN', '解冻一支 HEK293T'], { input: 'a\n\n', dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/╭─ record_thaw ─+ 需要填写 ─╮/);
    expect(first.stdout).toContain('│ 2 个盒子里有 HEK293T。这 1 支从哪个盒取？');
    expect(first.stdout).toContain('│   1. 2 号盒 · D1、D2、D3 ');
    expect(first.stdout).toContain('也可输入 /cancel 取消填写。');
    expect(first.stdout).toContain('表单暂未填写。没有任何丢失');
    const runId = runIdOf(first.stdout);
    expect(await steps(dir, runId)).toEqual(['record_thaw.execute']);

    const listed = await runCli(['runs'], { input: null, dir });
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+needs_input\\s+.*form of record_thaw`));

    const resumed = await runCli(['resume', runId, '--lang', 'zh-CN'], { input: '1\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('已完成：从 2 号盒解冻 1 支 HEK293T（D1），剩余 4 支。');
    expect(await steps(dir, runId)).toEqual(['record_thaw.execute', 'record_thaw.resume']);
  });

  it('cancels the form with /cancel: resume never runs, the model is told and goes on', async () => {
    const dir = tempDir();
    const run = await runCli(['Thaw one HEK293T vial'], { input: 'a\n\n/cancel\n\n', dir });
    expect(run.stdout).toContain('Agent › No box was chosen, so I did not record the thaw.');
    const runId = runIdOf(run.stdout);
    expect(await steps(dir, runId)).toEqual(['record_thaw.execute']);
    expect(JSON.parse(toolResults(await transcript(dir, runId), 'record_thaw')[0]!)).toMatchObject({
      ok: false,
      error_code: 'question_cancelled',
    });
    expect((await freezerOf(dir, runId)).thaws).toEqual([]);
  });
});

describe('a timed question (--timeout-seconds)', () => {
  it('counts down on the card; when time is up the prompt closes, the run goes on and takes a message', async () => {
    const dir = tempDir();
    const run = await runCliScripted(['--timeout-seconds', '1.5'], {
      dir,
      steps: [{ waitFor: 'Type a follow-up message', write: '\n' }],
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/│ Time left to answer: 0:0[12] +│/);
    expect(run.stdout).toContain('⧗ Question timed out, the agent will continue');
    expect(run.stdout).toContain('Agent › Without an answer I will not thaw anything.');
    const [result] = toolResults(await transcript(dir, runIdOf(run.stdout)), 'AskUserQuestion');
    expect(JSON.parse(result!)).toMatchObject({ ok: false, error_code: 'question_timeout' });
  });

  it('says so in Chinese, and the conversation goes on with the next message', async () => {
    const dir = tempDir();
    const run = await runCliScripted(['--lang', 'zh-CN', '--timeout-seconds', '1'], {
      dir,
      steps: [
        { waitFor: '提问超时，Agent 将继续执行', write: 'Thaw one HeLa vial\n' },
        { waitFor: '是否批准？', write: 'r\n\n' },
        { waitFor: '输入后续消息', write: '\n' },
      ],
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('剩余回答时间：0:01');
    expect(run.stdout).toContain('好的，未记录此次解冻。');
  });

  it('resolves a question that expired while nobody ran the CLI, before showing it again', async () => {
    const dir = tempDir();
    const first = await runCli(['--timeout-seconds', '0.5'], { input: null, dir });
    expect(first.stdout).toContain('Question left unanswered.');
    const runId = runIdOf(first.stdout);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const resumed = await runCli(['resume', runId], { input: '\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain('╭─ Cell line ');
    expect(resumed.stdout).toContain('⧗ Question timed out, the agent will continue');
    expect(resumed.stdout).toContain('Agent › Without an answer I will not thaw anything.');
  });

  it('refuses a timeout that is not a number of seconds', async () => {
    const run = await runCli(['--timeout-seconds', 'soon'], { input: null, dir: tempDir() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--timeout-seconds takes a number of seconds (0: no limit), not "soon".');
  });
});
