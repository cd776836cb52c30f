/**
 * The web demo on a real provider, against a loopback server speaking its protocol
 * (`@turnkit/demo-models/testing`): the agent's tools reach the provider and its question pauses
 * the run as the script's do; and `main` as a process — `--model` or `TURNKIT_MODEL`, a usage error
 * for an unknown provider, one line for a missing key, one line on stderr for a refused key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseModel } from '@turnkit/demo-models';
import { type FakeProviders, startFakeProviders } from '@turnkit/demo-models/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../src/server.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

let fake: FakeProviders;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  fake = await startFakeProviders({ apiKey: 'test-key' });
  dir = await mkdtemp(join(tmpdir(), 'turnkit-web-models-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(server: DemoServer | string, path: string, body: unknown) {
  const base = typeof server === 'string' ? server : server.url;
  const response = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** `node --import tsx src/main.ts …args`, with no provider or TurnKit variable of this machine. */
function startMain(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(OPENAI_|ANTHROPIC_|TURNKIT_)/.test(key)),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: PACKAGE_DIR,
    env: { ...clean, PORT: '0', TURNKIT_WEB_DIR: join(dir, 'main-runs'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { output, exited };
}

describe('the web demo on a provider', () => {
  it('offers the agent’s tools to the provider and pauses on the question it asks', async () => {
    const choice = (await chooseModel('anthropic:claude-test-1', {
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: fake.baseURL,
    }))!;
    const server = await startDemoServer({
      port: 0,
      dataDir: join(dir, 'runs'),
      sweepMs: 0,
      model: choice.model,
    });
    try {
      const started = await post(server, '/api/runs', { input: 'Thaw one K562 vial' });
      expect(started.status).toBe(201);
      expect(started.body.status).toBe('needs_input');
      expect(started.body.pending[0].payload.questions[0].question).toBe('Which K562 line?');
      expect(fake.requests.at(-1)).toEqual({
        api: 'messages',
        model: 'claude-test-1',
        tools: [
          'query_inventory',
          'thaw_vials',
          'count_vials',
          'AskUserQuestion',
          'storage',
          'transfer_to_lab-desk',
        ],
        stream: true,
        apiKey: 'test-key',
        // The agent's output schema, the thaw plan, goes as the provider's structured output.
        responseFormat: 'json_schema',
      });
      const done = await post(server, `/api/runs/${started.body.runId}/answer`, {
        id: started.body.pending[0].id,
        answers: { 'Cell line': 'K562-dTAG' },
      });
      expect(done.body.status).toBe('completed');
      expect(done.body.output).toEqual({
        summary: 'You picked: {"answers":{"Cell line":"K562-dTAG"}}',
        thawed: [],
        medium: null,
        followUps: [],
        nextSteps: [],
      });
    } finally {
      await server.close();
    }
  });
});

describe('main', () => {
  it('refuses an unknown provider as a usage error, with the help', async () => {
    const main = startMain(['--model', 'mistral:large'], {});
    expect(await main.exited).toBe(2);
    const [first, ...rest] = main.output.stderr.split('\n');
    expect(first).toBe(
      '--model: unknown provider "mistral" in "mistral:large". Known providers: openai, openai-chat, anthropic (e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5).',
    );
    expect(rest.join('\n')).toContain('Usage: node dist/main.js [--model provider:model]');
    expect(main.output.stdout).toBe('');
  });

  it('says in one line which key is missing (TURNKIT_MODEL), and starts nothing', async () => {
    const main = startMain([], { TURNKIT_MODEL: 'anthropic:claude-sonnet-4-5' });
    expect(await main.exited).toBe(1);
    expect(main.output.stderr).toBe(
      'anthropic:claude-sonnet-4-5 needs ANTHROPIC_API_KEY: set it (and ANTHROPIC_BASE_URL for another endpoint), or leave the model out to run offline.\n',
    );
    expect(main.output.stdout).toBe('');
  });

  it('serves on the named model, and tells a refused key in one line on stderr', async () => {
    const main = startMain(['--model', 'openai:gpt-test'], {
      OPENAI_API_KEY: 'wrong-key',
      OPENAI_BASE_URL: fake.baseURL,
    });
    await expect.poll(() => main.output.stdout, { timeout: 20_000 }).toMatch(/http:\/\/localhost:\d+\//);
    const [banner] = main.output.stdout.split('\n');
    expect(banner).toMatch(
      new RegExp(`^TurnKit web demo \\(model openai:gpt-test at ${fake.baseURL}\\): http://localhost:\\d+/$`),
    );
    const url = /http:\/\/localhost:\d+\//.exec(banner!)![0];
    const started = await post(url, '/api/runs', { input: 'Thaw one K562 vial' });
    expect(started.body.status).toBe('failed');
    expect(started.body.error.message).toBe('The model provider refused the credentials (401).');
    await expect.poll(() => main.output.stderr).not.toBe('');
    expect(main.output.stderr).toBe(
      'openai:gpt-test: the provider refused the key in OPENAI_API_KEY (401): Incorrect API key provided: wrong-key. Check OPENAI_API_KEY.\n',
    );
  });

  it('documents --model in its help', async () => {
    const main = startMain(['--help'], {});
    expect(await main.exited).toBe(0);
    expect(main.output.stdout).toContain('--model provider:model');
    expect(main.output.stdout).toContain('ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL');
  });
});
