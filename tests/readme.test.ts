/**
 * Runs every ```ts block of the READMEs that starts with `// example: <name>`, exactly as written,
 * in a fresh Node process against the built packages, and checks what it prints. An example that
 * imports `./agent.js` gets `fixtures/agent.ts` (a scripted inventory agent) beside it.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = join(here, '.examples');
const run = promisify(execFile);
const readmes = [join(here, '..', 'README.md'), join(here, '..', 'packages', 'adapters', 'README.md')];

async function examples(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const readme of readmes) {
    const text = await readFile(readme, 'utf8');
    for (const match of text.matchAll(/```ts\n(\/\/ example: ([\w-]+)\n[\s\S]*?)```/g))
      found.set(match[2]!, match[1]!);
  }
  return found;
}

/** Writes the example (and the fixtures it may import) to the scratch folder; runs `entry` with tsx. */
async function runExample(name: string, options: { entry?: string; env?: Record<string, string> } = {}) {
  const code = (await examples()).get(name);
  if (!code) throw new Error(`no README has an example named ${name}`);
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, `${name}.ts`), code);
  for (const fixture of ['agent.ts', 'postgres-handler-harness.ts', 'http-handler-harness.ts']) {
    await copyFile(join(here, 'fixtures', fixture), join(scratch, fixture));
  }
  const entry = join(scratch, options.entry ?? `${name}.ts`);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', entry], {
    cwd: scratch,
    env: { ...process.env, ...options.env },
    timeout: 60_000,
  });
  return stdout;
}

afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A loopback port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const pgUrl = process.env.TURNKIT_PG_URL;
if (!pgUrl && process.env.CI !== 'true') {
  console.warn('TURNKIT_PG_URL is not set: the README example on PostgreSQL is skipped.');
}

describe('README examples', () => {
  it('lists the examples this suite knows', async () => {
    expect([...(await examples()).keys()].sort()).toEqual([
      'event-log',
      'http-handler',
      'postgres-handler',
      'quickstart',
      'sessions',
      'subagents',
    ]);
  });

  it('quickstart: pauses, stores the snapshot in a file, and resumes from it', async () => {
    const lines = (await runExample('quickstart')).trim().split('\n');
    expect(lines[0]).toBe('needs_input');
    expect(lines.join('\n')).toContain("header: 'Cell line'");
    expect(lines.at(-1)).toBe('completed Found it: {"cellLine":"K562-dTAG","vials":3,"rack":"B2"}');
  });

  it('sessions: pauses for approval and lets exactly one of two concurrent decisions win', async () => {
    const output = await runExample('sessions');
    expect(output).toMatch(/^approval \{\s+toolName: 'record_thaw'/);
    expect(output.trim().split('\n').at(-1)).toBe("[ 'completed', true ]");
  });

  it('subagents: a child question pauses the parent and the answer is routed down', async () => {
    const lines = (await runExample('subagents')).trim().split('\n');
    expect(lines).toEqual(["[ 'lead', 'researcher' ]", 'Plan: thaw K562. Use RPMI-1640.']);
  });

  it('http-handler: a Web-standard handler on Node, behind a bearer token, with runs in a file store', async () => {
    const output = await runExample('http-handler', {
      entry: 'http-handler-harness.ts',
      env: { PORT: String(await freePort()), TURNKIT_API_TOKEN: 'example-token' },
    });
    const { anonymous, started, answered } = JSON.parse(output) as {
      anonymous: number;
      started: { status: number; body: { status: string } };
      answered: { status: number; body: { status: string; output: string } };
    };
    expect(anonymous).toBe(401);
    expect(started).toMatchObject({ status: 201, body: { status: 'needs_input' } });
    expect(answered).toMatchObject({
      status: 200,
      body: { status: 'completed', output: 'Noted: {"answers":{"Cell line":"K562"}}' },
    });
  });

  it('event-log: writes the run history as JSON lines and reads it back', async () => {
    const output = await runExample('event-log');
    expect(output.trim()).toBe('turn_started model_started model_finished interaction_requested turn_paused');
  });

  it.skipIf(!pgUrl && process.env.CI !== 'true')(
    'postgres-handler: one HTTP request per turn, with the run kept in PostgreSQL',
    async () => {
      if (!pgUrl) throw new Error('TURNKIT_PG_URL must be set under CI');
      const output = await runExample('postgres-handler', {
        entry: 'postgres-handler-harness.ts',
        env: { DATABASE_URL: pgUrl },
      });
      const { started, answered } = JSON.parse(output) as {
        started: { runId: string; status: string; pending: { kind: string }[] };
        answered: { runId: string; status: string; output: string };
      };
      expect(started.status).toBe('needs_input');
      expect(started.pending[0]?.kind).toBe('question');
      expect(answered).toMatchObject({
        runId: started.runId,
        status: 'completed',
        output: 'Noted: {"answers":{"Cell line":"K562-dTAG"}}',
      });
    },
  );
});
