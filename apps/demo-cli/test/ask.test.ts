/** `turnkit-demo ask '<json>'`: AskUserQuestion from a shell, with its exit codes 0, 1 and 2. */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, tempDir } from './helpers.js';

afterAll(cleanup);

const QUESTIONS = JSON.stringify({
  questions: [
    {
      question: 'Which auth method should we use?',
      header: 'Auth method',
      options: [
        { label: 'OAuth 2.0', description: 'Industry standard, supports social login' },
        { label: 'JWT', description: 'Stateless tokens, good for APIs' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which features should be enabled?',
      header: 'Features',
      options: ['Caching', 'Logging', 'Metrics'],
      multiple: true,
    },
  ],
});

describe('turnkit-demo ask', () => {
  it('prints {"answers":…} on stdout and exits 0; the cards go to stderr', async () => {
    const run = await runCli(['ask', QUESTIONS], { input: '2\n1,3\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"answers":{"Auth method":"JWT","Features":"Caching, Metrics"}}\n');
    expect(run.stderr).toContain('╭─ Auth method ');
    expect(run.stderr).toContain('│   2. JWT');
    expect(run.stderr).toContain('│      Stateless tokens, good for APIs');
    expect(run.stderr).toContain('│   0. Other (custom input)');
  });

  it('formats Other text as the tool does', async () => {
    const run = await runCli(['ask', QUESTIONS], {
      input: 'other\nSessions\n1,0\naudit log\n',
      dir: tempDir(),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      '{"answers":{"Auth method":"Other (custom: Sessions)","Features":"Caching, Other (custom: audit log)"}}\n',
    );
  });

  it('rejects invalid questions with the tool’s "Error: Validation failed" list and a usage line, exit 1', async () => {
    const bad = JSON.stringify({
      questions: [
        {
          question: 'x?',
          header: 'A header that is too long',
          options: [{ label: 'a', description: 'b' }],
          multiSelect: false,
        },
      ],
    });
    const run = await runCli(['ask', bad], { input: null, dir: tempDir() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^Error: Validation failed\n- questions\[0\]\.header: .*12 characters\n- questions\[0\]\.options: .*\n/,
    );
    expect(run.stderr).toContain('Usage: turnkit-demo ask \'{"questions":');
  });

  it('rejects unparsable and missing JSON, exit 1', async () => {
    const broken = await runCli(['ask', '{"questions": ['], { input: null, dir: tempDir() });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^Error: Invalid JSON format\n/);
    expect(broken.stderr).toContain('Usage: turnkit-demo ask');
    const missing = await runCli(['ask'], { input: null, dir: tempDir() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: Missing JSON parameter\nUsage: turnkit-demo ask/);
  });

  it('honours the ASK_* limits like the tool', async () => {
    const run = await runCli(['ask', QUESTIONS], {
      input: null,
      dir: tempDir(),
      env: { ASK_MAX_QUESTIONS: '1' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('- questions: Too big');
  });

  it('prints a question_cancelled error on stdout and exits 2 at end of input', async () => {
    const run = await runCli(['ask', QUESTIONS], { input: '1\n', dir: tempDir() });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error_code: 'question_cancelled' });
  });

  it('picks rows by number even when the labels are numbers, and takes numbers past 9', async () => {
    const questions = JSON.stringify({
      questions: [
        { question: 'Which rack?', header: 'Rack', options: ['2', '1'] },
        {
          question: 'Which box?',
          header: 'Box',
          options: Array.from({ length: 12 }, (_, i) => `Box ${i + 1}`),
        },
      ],
    });
    const run = await runCli(['ask', questions], {
      input: '1\n10\n',
      dir: tempDir(),
      env: { ASK_MAX_OPTIONS: '12' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"answers":{"Rack":"2","Box":"Box 10"}}\n');
    expect(run.stderr).toContain('│    9. Box 9');
    expect(run.stderr).toContain('│   10. Box 10');
    expect(run.stderr).toContain('│    0. Other (custom input)');
  });

  it('says which row a number-like label is on when its number is read as a missing row', async () => {
    const questions = JSON.stringify({
      questions: [{ question: 'How many vials?', header: 'Vials', options: ['5', '10'] }],
    });
    const run = await runCli(['ask', questions], { input: '10\n2\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      '✗ "10" is read as a row number, and there is no row 10. The option labelled "10" is row 2: enter 2.',
    );
    expect(run.stdout).toBe('{"answers":{"Vials":"10"}}\n');
  });

  it("shows seed 003's context (hint and refs) under the question", async () => {
    const questions = JSON.stringify({
      questions: [
        {
          question: 'Which box should the vial come from?',
          header: 'Box',
          options: ['Box 2', 'Box 6'],
          context: { refs: ['freezer-2/rack-B', 'inventory.csv'], hint: 'Both boxes hold HEK293T' },
        },
      ],
    });
    const run = await runCli(['ask', questions], { input: '1\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('│ Which box should the vial come from?');
    expect(run.stderr).toContain('│ Context: Both boxes hold HEK293T');
    expect(run.stderr).toContain('│ Refs: freezer-2/rack-B, inventory.csv');
  });

  it('asks a free-text question on a line of its own: no options, no Other; an empty line asks again', async () => {
    const questions = JSON.stringify({
      questions: [
        { question: 'Where should the new vials go?', header: 'Position', options: [] },
        { question: 'Anything to add?', header: 'Remarks', options: [] },
      ],
    });
    const run = await runCli(['ask', questions], { input: '\nB2-14\n/skip\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"answers":{"Position":"B2-14","Remarks":"(skipped)"}}\n');
    expect(run.stderr).toContain('│ Where should the new vials go?');
    expect(run.stderr).toContain('│ Type your answer.');
    expect(run.stderr).not.toContain('Other (custom input)');
    expect(run.stderr).not.toContain('1. ');
    expect(run.stderr).toContain('Your answer: \n✗ The answer is empty: type it, or /skip this question.');
  });

  it('prints question_cancelled and exits 2 on /cancel, after any answer so far', async () => {
    const run = await runCli(['ask', QUESTIONS], { input: '1\n/cancel\n', dir: tempDir() });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      error_code: 'question_cancelled',
      message: 'The user cancelled the question; no answer was given.',
    });
  });

  it('draws the cards in Chinese with --lang zh-CN', async () => {
    const run = await runCli(['ask', QUESTIONS, '--lang', 'zh-CN'], { input: '1\n2\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Agent 提问 1/2');
    expect(run.stdout).toBe('{"answers":{"Auth method":"OAuth 2.0","Features":"Logging"}}\n');
  });
});
