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

  it('draws the cards in Chinese with --lang zh-CN', async () => {
    const run = await runCli(['ask', QUESTIONS, '--lang', 'zh-CN'], { input: '1\n2\n', dir: tempDir() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Agent 提问 1/2');
    expect(run.stdout).toBe('{"answers":{"Auth method":"OAuth 2.0","Features":"Logging"}}\n');
  });
});
