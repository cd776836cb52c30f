/**
 * Real providers on demand: `--model provider:model` (or `TURNKIT_MODEL`) runs the same agent on an
 * AI SDK 6 provider through `aiSdkModel`; without one the demo stays offline, whatever keys are
 * set. A loopback server speaking each provider's protocol (`@turnkit/demo-models/testing`) stands
 * in for OpenAI's Responses API and Anthropic's Messages API, so the test checks the wiring (model,
 * key, base URL, tools offered, streamed text) and the failures: an unknown provider is a usage
 * error, a missing key and a refused key are one line on stderr.
 */
import { type FakeProviders, startFakeProviders } from '@turnkit/demo-models/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, tempDir } from './helpers.js';

const TOOLS = ['query_inventory', 'record_thaw', 'AskUserQuestion', 'storage', 'transfer_to_lab-desk'];

let fake: FakeProviders;
let keys: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeProviders({ apiKey: 'test-key' });
  keys = {
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: fake.baseURL,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
  };
});
afterAll(async () => {
  cleanup();
  await fake.close();
});

describe('turnkit-demo on a provider', () => {
  it('runs on OpenAI’s Responses API with --model openai:…, offering the same tools', async () => {
    const before = fake.requests.length;
    const run = await runCli(['--model', 'openai:gpt-test', 'Thaw one K562 vial'], {
      input: '2\n\n',
      dir: tempDir(),
      env: keys,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Model: openai:gpt-test at ${fake.baseURL}`);
    expect(run.stdout).toContain('╭─ Cell line ');
    expect(run.stdout).toContain('Agent › You picked: {"answers":{"Cell line":"K562-dTAG"}}');
    // The agent's output schema (the thaw plan) goes as OpenAI's json_schema; the plan's summary is shown.
    expect(run.stdout).not.toContain('{"summary"');
    const seen = {
      api: 'responses',
      model: 'gpt-test',
      tools: TOOLS,
      stream: true,
      apiKey: 'test-key',
      responseFormat: 'json_schema:ln2-inventory',
    };
    expect(fake.requests.slice(before)).toEqual([seen, seen]);
  });

  it('runs on Anthropic’s Messages API with TURNKIT_MODEL', async () => {
    const before = fake.requests.length;
    const run = await runCli(['Thaw one K562 vial'], {
      input: '1\n\n',
      dir: tempDir(),
      env: { ...keys, TURNKIT_MODEL: 'anthropic:claude-test-1' },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`Model: anthropic:claude-test-1 at ${fake.baseURL}`);
    expect(run.stdout).toContain('Agent › You picked: {"answers":{"Cell line":"K562 (Recommended)"}}');
    expect(
      fake.requests
        .slice(before)
        .map((request) => `${request.api}:${request.model}:${request.responseFormat}`),
    ).toEqual(['messages:claude-test-1:json_schema', 'messages:claude-test-1:json_schema']);
  });

  it('stays offline with keys set but no model named, and with --offline', async () => {
    const before = fake.requests.length;
    for (const args of [[], ['--offline']]) {
      const run = await runCli(args, {
        input: null,
        dir: tempDir(),
        env: { ...keys, ...(args.length ? { TURNKIT_MODEL: 'openai:gpt-test' } : {}) },
      });
      expect(run.stdout).toContain('Offline demo: a scripted LN2 freezer assistant');
    }
    expect(fake.requests.length).toBe(before);
  });

  it('refuses an unknown provider as a usage error: one line, then where the help is', async () => {
    const run = await runCli(['--model', 'mistral:large'], { input: null, dir: tempDir(), env: keys });
    expect(run.code).toBe(1);
    const [first, ...rest] = run.stderr.split('\n');
    expect(first).toBe(
      '--model: unknown provider "mistral" in "mistral:large". Known providers: openai, openai-chat, anthropic (e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5).',
    );
    expect(rest).toEqual(['Run turnkit-demo --help to see every option.', '']);
    const bare = await runCli(['--model', 'gpt-4.1-mini'], { input: null, dir: tempDir() });
    expect(bare.stderr.split('\n')[0]).toBe(
      '--model takes provider:model, e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5; got "gpt-4.1-mini".',
    );
  });

  it('refuses an unknown flag in one sentence that points to --help, in the language asked for', async () => {
    const run = await runCli(['--frobnicate'], { input: null, dir: tempDir() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('Unknown option --frobnicate: run turnkit-demo --help to see every option.\n');
    const short = await runCli(['-x', 'Thaw one vial'], { input: null, dir: tempDir() });
    expect(short.stderr).toBe('Unknown option -x: run turnkit-demo --help to see every option.\n');
    const zh = await runCli(['--bogus', '--lang', 'zh-CN'], { input: null, dir: tempDir() });
    expect(zh.code).toBe(1);
    expect(zh.stderr).toBe('未知选项 --bogus：运行 turnkit-demo --help 查看所有选项。\n');
  });

  it('says which option lacks its value, or takes none, in one sentence that points to --help', async () => {
    const missing = await runCli(['--lang'], { input: null, dir: tempDir() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('--lang needs a value: run turnkit-demo --help to see every option.\n');
    const extra = await runCli(['--json=yes'], { input: null, dir: tempDir() });
    expect(extra.code).toBe(1);
    expect(extra.stderr).toBe('--json takes no value: run turnkit-demo --help to see every option.\n');
  });

  it('gives the usage of resume when the run id is missing', async () => {
    const run = await runCli(['resume'], { input: null, dir: tempDir() });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Usage: turnkit-demo resume <runId>\n');
    expect(run.stdout).not.toContain('Unknown');
  });

  it('says in one line which key is missing, and starts nothing', async () => {
    const run = await runCli(['--model', 'anthropic:claude-sonnet-4-5'], { input: null, dir: tempDir() });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: anthropic:claude-sonnet-4-5 needs ANTHROPIC_API_KEY: set it (and ANTHROPIC_BASE_URL for another endpoint), or leave the model out to run offline.\n',
    );
    expect(run.stdout).toBe('');
  });

  it('tells a refused key in one line on stderr; the turn fails and can be retried', async () => {
    const run = await runCli(['--model', 'openai:gpt-test'], {
      input: null,
      dir: tempDir(),
      env: { ...keys, OPENAI_API_KEY: 'wrong-key' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'openai:gpt-test: the provider refused the key in OPENAI_API_KEY (401): Incorrect API key provided: wrong-key. Check OPENAI_API_KEY.\n',
    );
    expect(run.stdout).toContain(
      'The turn failed (MODEL_ERROR): The model provider refused the credentials (401).',
    );
    expect(run.stdout).toMatch(/Retry with: turnkit-demo resume run_/);
  });
});
