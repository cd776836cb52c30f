/**
 * The offline demo end to end, through piped stdin (line mode), each run in its own process and
 * run folder: answers by number, multi-select, Other with text, re-prompts, approvals, and a run
 * left at a question and resumed by another process.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

afterAll(cleanup);

describe('turnkit-demo (offline, piped stdin)', () => {
  it('answers by number and multi-select "1,3", approves, and completes', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '2\n1,3\na\n\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('╭─ Cell line ');
    expect(run.stdout).toContain('│   1. K562 (Recommended)');
    expect(run.stdout).toContain('│      parental line · 4 vials · box 3');
    expect(run.stdout).toContain('│   0. Other (custom input)');
    expect(run.stdout).toContain('Enter numbers, e.g. 1,3 (empty = 1), or 0 for custom input: 1,3');
    expect(run.stdout).toContain('╭─ Approval needed ');
    expect(run.stdout).toContain('│ Reason  Takes 1 vial of K562-dTAG out of box 3 (B1); 1 will remain.');
    expect(run.stdout).not.toMatch(/Asked by|Requested by/);
    expect(run.stdout).toContain(
      'Agent › Done: thawed 1 vial of K562-dTAG from box 3 (B1), 1 left. Follow-ups: Mycoplasma test, Notify lab manager.',
    );
    // The final answer is a typed thaw plan (output: ThawPlan), drawn as a list, never as raw JSON.
    expect(run.stdout).toContain(
      [
        '  Thaw plan',
        '    • K562-dTAG · box 3 · B1 · 1 left',
        '    • Follow-ups: Mycoplasma test, Notify lab manager',
        '    • Next: Warm the vial at 37 °C and spin it down within 10 minutes.',
      ].join('\n'),
    );
    expect(run.stdout).not.toContain('{"summary"');
    const messages = await transcript(dir, runIdOf(run.stdout));
    expect(toolResults(messages, 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-dTAG","Follow-ups":"Mycoplasma test, Notify lab manager"}}',
    ]);
    expect(JSON.parse(toolResults(messages, 'record_thaw')[0]!)).toMatchObject({
      ok: true,
      cellLine: 'K562-dTAG',
      left: 1,
    });
    expect(messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(JSON.parse(messages.at(-1)!.content as string)).toEqual({
      summary:
        'Done: thawed 1 vial of K562-dTAG from box 3 (B1), 1 left. Follow-ups: Mycoplasma test, Notify lab manager.',
      thawed: [{ cellLine: 'K562-dTAG', box: '3', positions: ['B1'], vialsLeft: 1 }],
      medium: null,
      followUps: ['Mycoplasma test', 'Notify lab manager'],
      nextSteps: ['Warm the vial at 37 °C and spin it down within 10 minutes.'],
    });
  });

  it('takes "0" then free text as Other, and an empty line as the recommended option', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '0\nHeLa\n\na\nlooks fine\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Your answer: HeLa');
    expect(run.stdout).toContain('Checking the freezer for HeLa.');
    expect(run.stdout).toContain(
      'Done: thawed 1 vial of HeLa from box 1 (A1), 2 left. Follow-ups: Mycoplasma test.',
    );
    const messages = await transcript(dir, runIdOf(run.stdout));
    expect(toolResults(messages, 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"Other (custom: HeLa)","Follow-ups":"Mycoplasma test"}}',
    ]);
  });

  it('re-prompts with a reason on invalid input instead of picking, then takes the valid answer', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '7\n1,2\n3\nsoon\n2\nmaybe\nr\nwrong line\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '✗ "7" is not an option: enter a number from 1 to 3, or 0 for custom input.',
    );
    expect(run.stdout).toContain('✗ This question takes one answer: enter a single number.');
    expect(run.stdout).toContain(
      '✗ "soon" is not an option: enter a number from 1 to 3, or 0 for custom input.',
    );
    expect(run.stdout).toContain('✗ Type a (approve), r (reject) or e (edit input).');
    expect(run.stdout).toContain('Agent › Understood, I did not record the thaw. Your reason: wrong line');
    const messages = await transcript(dir, runIdOf(run.stdout));
    expect(toolResults(messages, 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-RTCB","Follow-ups":"Viability count"}}',
    ]);
    expect(JSON.parse(toolResults(messages, 'record_thaw')[0]!)).toMatchObject({
      ok: false,
      error_code: 'rejected_by_user',
      rationale: 'wrong line',
    });
  });

  it('skips a question with /skip, and cancels one with /cancel: the model is told and goes on', async () => {
    const skipDir = tempDir();
    const skipped = await runCli([], { input: '2\n/skip\na\n\n\n', dir: skipDir });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain('Or type /skip to skip this question, /cancel to cancel the question.');
    expect(toolResults(await transcript(skipDir, runIdOf(skipped.stdout)), 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-dTAG","Follow-ups":"(skipped)"}}',
    ]);

    const cancelDir = tempDir();
    const cancelled = await runCli([], { input: '0\n/cancel\n\n', dir: cancelDir });
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain('Agent › Without an answer I will not thaw anything.');
    expect(cancelled.stdout.match(/╭─ /g)).toHaveLength(1);
    const [result] = toolResults(await transcript(cancelDir, runIdOf(cancelled.stdout)), 'AskUserQuestion');
    expect(JSON.parse(result!)).toMatchObject({
      ok: false,
      error_code: 'question_cancelled',
      message: expect.stringContaining('The user cancelled the question.'),
    });
  });

  it('shows which agent asked: the storage sub-agent’s free-text question and approval', async () => {
    const dir = tempDir();
    const run = await runCli(['Store 2 new vials of HeLa'], { input: '\nB2-14, B2-15\na\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('│ Asked by ln2-inventory › storage ');
    expect(run.stdout).toContain('│ Where should the new HeLa vials go?');
    expect(run.stdout).not.toContain('0. Other');
    expect(run.stdout).toContain('✗ The answer is empty: type it, or /skip this question.');
    expect(run.stdout).toContain('│ Requested by ln2-inventory › storage ');
    expect(run.stdout).toContain('│ Reason  Adds 2 vials of HeLa at B2-14, B2-15.');
    expect(run.stdout).toContain('Agent · storage › Stored 2 vials of HeLa at B2-14, B2-15.');
    expect(toolResults(await transcript(dir, runIdOf(run.stdout)), 'storage')).toEqual([
      'Stored 2 vials of HeLa at B2-14, B2-15.',
    ]);
  });

  it('edits the approval input as JSON (re-prompting on bad JSON) before approving', async () => {
    const dir = tempDir();
    const run = await runCli([], {
      input: '1\n2\ne\n{bad\n{"cellLine":"K562","vials":2}\nneed two\n\n',
      dir,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✗ That is not valid JSON');
    expect(run.stdout).toContain(
      'Agent › Done: thawed 2 vials of K562 from box 3 (A1, A2), 2 left. (You edited the request before approving it.)',
    );
    expect(run.stdout).toContain('✓ record_thaw {"cellLine":"K562","vials":2}');
    expect(run.stdout).not.toMatch(/✓ record_thaw .*"vials":1/);
  });

  it('shows why core refused an edited input, and asks for the decision again', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '1\n1\ne\n{"cellLine":"K562","vials":0}\n\na\n\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The answer was not accepted:\n  - editedInput.vials: Too small');
    expect(run.stdout.match(/╭─ Approval needed /g)).toHaveLength(2);
    expect(run.stdout).toContain('Done: thawed 1 vial of K562 from box 3 (A1), 3 left.');
  });

  it('keeps a run waiting at EOF mid-question; `runs` lists it and `resume` in a new process completes it', async () => {
    const dir = tempDir();
    const first = await runCli([], { input: '2\n', dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Question left unanswered. Nothing is lost: run ');
    const runId = runIdOf(first.stdout);

    const listed = await runCli(['runs'], { input: null, dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+needs_input\\s+.*Cell line, Follow-ups`));

    const resumed = await runCli(['resume', runId], { input: '3\n2\na\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`Resuming run ${runId} (needs_input).`);
    expect(resumed.stdout).toContain('╭─ Cell line ');
    expect(resumed.stdout).toContain(
      'Done: thawed 1 vial of K562-RTCB from box 4 (C1), 2 left. Follow-ups: Viability count.',
    );
    expect(toolResults(await transcript(dir, runId), 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-RTCB","Follow-ups":"Viability count"}}',
    ]);

    const after = await runCli(['runs', '--json'], { input: null, dir });
    expect(
      after.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([expect.objectContaining({ runId, status: 'completed', waitingFor: '' })]);
  });

  it('recaps on resume the questions answered before the approval it stops at', async () => {
    const dir = tempDir();
    const first = await runCli([], { input: '2\n1\n', dir });
    const runId = runIdOf(first.stdout);
    const resumed = await runCli(['resume', runId], { input: 'a\n\n\n', dir });
    expect(resumed.code).toBe(0);
    const recap = resumed.stdout.slice(0, resumed.stdout.indexOf('╭─ Approval needed '));
    expect(recap).toContain('↳ Cell line: K562-dTAG');
    expect(recap).toContain('↳ Follow-ups: Mycoplasma test');
  });

  it('lists a run whose question expired as expired, not as waiting', async () => {
    const dir = tempDir();
    const first = await runCli(['--timeout-seconds', '1'], { input: null, dir });
    const runId = runIdOf(first.stdout);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const listed = await runCli(['runs'], { input: null, dir });
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+expired\\s+.*Cell line, Follow-ups \\(expired\\)`));
    const json = await runCli(['runs', '--json'], { input: null, dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ runId, status: 'expired' });
  });

  it('takes follow-up messages in the same run, with the inventory kept in the run context', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '1\n\na\n\nThaw one K562 vial\n1\n\na\n\n\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Done: thawed 1 vial of K562 from box 3 (A1), 3 left.');
    expect(run.stdout).toContain('│      parental line · 3 vials · box 3');
    expect(run.stdout).toContain('Done: thawed 1 vial of K562 from box 3 (A2), 2 left.');
  });

  it('names each line of the freezer once when nothing matches, in both languages', async () => {
    const dir = tempDir();
    const run = await runCli(['Thaw one MCF7 vial'], { input: '\n', dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Agent › There are no vials matching “MCF7” in the freezer. It holds: K562, K562-dTAG, K562-RTCB, HeLa, HEK293T.\n',
    );
    const zh = await runCli(['帮我解冻一支 MCF7', '--lang', 'zh-CN'], { input: '\n', dir });
    expect(zh.stdout).toContain(
      'Agent › 液氮罐中没有与“MCF7”匹配的冻存管。现有：K562、K562-dTAG、K562-RTCB、HeLa、HEK293T。\n',
    );
  });

  it('reports an unknown run id', async () => {
    const dir = tempDir();
    const run = await runCli(['resume', 'run_missing'], { input: null, dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('There is no run run_missing in');
  });

  it('prints every event as a JSON line with --json, the interface going to stderr', async () => {
    const dir = tempDir();
    const run = await runCli(['--json'], { input: null, dir });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; runId: string });
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'turn_started',
        'model_delta',
        'tool_finished',
        'interaction_requested',
        'turn_paused',
      ]),
    );
    expect(run.stderr).toContain('╭─ Cell line ');
    expect(run.stderr).toContain(`turnkit-demo resume ${events[0]!.runId}`);
  });

  it('documents everything in --help', async () => {
    const run = await runCli(['--help'], { input: null, dir: tempDir() });
    expect(run.code).toBe(0);
    for (const text of [
      'resume <runId>',
      'runs',
      "ask '<json>'",
      '--lang en|zh-CN',
      '--json',
      '--dir',
      'TURNKIT_DIR',
      '--model provider:model',
      'TURNKIT_MODEL',
      'OPENAI_API_KEY, OPENAI_BASE_URL',
      'ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL',
      '--timeout-seconds <n>',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });
});

describe('turnkit-demo --lang zh-CN', () => {
  it('shows the interface in Chinese', async () => {
    const run = await runCli(['--lang', 'zh-CN'], { input: null, dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Agent 正在向您提问...');
    expect(run.stdout).toContain('Agent 提问 1/2');
    expect(run.stdout).toContain('0. 其他（自定义输入）');
    expect(run.stdout).toContain('输入编号（回车 = 1），或输入 0 自定义：');
    expect(run.stdout).toContain('也可输入 /skip 跳过此问题，或输入 /cancel 取消提问。');
    expect(run.stdout).toContain('问题暂未回答。没有任何丢失');
  });

  it('is the default for a Chinese locale, and --lang overrides the locale', async () => {
    const chinese = await runCli(['--help'], { input: null, dir: tempDir(), env: { LANG: 'zh_CN.UTF-8' } });
    expect(chinese.stdout).toContain('用法：');
    const english = await runCli(['--help', '--lang', 'en'], {
      input: null,
      dir: tempDir(),
      env: { LC_ALL: 'zh_CN.UTF-8' },
    });
    expect(english.stdout).toContain('Usage:');
  });
});
