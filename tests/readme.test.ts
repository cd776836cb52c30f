/**
 * Runs every ```ts block of the documentation that starts with `// example: <name>` (in the root
 * README, the packages' READMEs and the pages under docs/), exactly as written, in a fresh Node
 * process against the built packages, and checks what it prints. An example that imports
 * `./agent.js` gets the `agent` example of Getting started (a scripted inventory agent) beside it.
 */
import { execFile } from 'node:child_process';
import { appendFile, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { namedExamples } from './fixtures/doc-blocks.js';
import { freePort } from './free-port.js';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = join(here, '.examples');
const run = promisify(execFile);

/** The named examples by name (the list test below fails on a name written twice). */
async function examples(): Promise<Map<string, string>> {
  return new Map((await namedExamples()).map((example) => [example.name, example.code]));
}

/** Writes the example and the ones it goes with to the scratch folder, as `<name>.<ext>`. */
async function writeExamples(names: string[], ext = 'ts'): Promise<void> {
  const all = await examples();
  await mkdir(scratch, { recursive: true });
  for (const name of names) {
    const code = all.get(name);
    if (!code) throw new Error(`no page of the documentation has an example named ${name}`);
    await writeFile(join(scratch, `${name}.${ext}`), code);
  }
}

/**
 * Writes the example (with `also`, other examples it runs with, and the fixtures it may import) to
 * the scratch folder, with `append` (code of the test's own) after its code; runs `entry` with tsx.
 */
async function runExample(
  name: string,
  options: { entry?: string; env?: Record<string, string>; also?: string[]; append?: string } = {},
) {
  await writeExamples([name, 'agent', ...(options.also ?? [])]);
  if (options.append) await appendFile(join(scratch, `${name}.ts`), options.append);
  for (const fixture of ['postgres-handler-harness.ts', 'http-handler-harness.ts', 'frontend-harness.ts']) {
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

/** Serves `frontend-server` and runs the front-end example `client` against it. */
async function runFrontend(client: string) {
  return runExample(client, {
    also: ['frontend-server'],
    entry: 'frontend-harness.ts',
    env: { PORT: String(await freePort()), TURNKIT_CLIENT: client },
  });
}

/** TURNKIT_SECRET for the README quick start, which signs its snapshots with it. */
const QUICK_START_ENV = { TURNKIT_SECRET: 'readme-test-secret-0123456789abcdef' };

/**
 * Appended to the README quick start, in its module: a client edits the snapshot it holds (the
 * user's message in it), then sends the one it got; prints what each answer did.
 */
const TAMPERING = `
const { TurnkitError } = await import('@turnkit/core');
const edited = paused.snapshot.replace('Thaw one K562 vial', 'Thaw ten K562 vials');
for (const held of [edited, paused.snapshot]) {
  try {
    const resumed = await answerQuestion(agent, held, { answers: { 'Cell line': 'K562' } });
    console.log('resumed', held === edited ? 'edited' : 'unchanged', resumed.status);
  } catch (error) {
    console.log('refused', held === edited ? 'edited' : 'unchanged', TurnkitError.isInstance(error) ? \`\${error.name} \${error.code}\` : error);
  }
}
`;

const pgUrl = process.env.TURNKIT_PG_URL;
const redisUrl = process.env.TURNKIT_REDIS_URL;
if (!redisUrl && process.env.CI !== 'true') {
  console.warn('TURNKIT_REDIS_URL is not set: the example of background turns is skipped.');
}
if (!pgUrl && process.env.CI !== 'true') {
  console.warn('TURNKIT_PG_URL is not set: the example on PostgreSQL is skipped.');
}

describe('the named examples of the documentation', () => {
  it('lists the examples this suite knows, each name once', async () => {
    expect((await namedExamples()).map((example) => example.name).sort()).toEqual([
      'a2a',
      'agent',
      'agent-essentials',
      'ai-sdk-model',
      'answer-links',
      'background-turns',
      'budgets',
      'deploying-new-code',
      'event-log',
      'forks',
      'frontend-ag-ui',
      'frontend-ai-sdk',
      'frontend-server',
      'getting-started',
      'handoffs',
      'hooks-policy',
      'hooks-redact',
      'hooks-review',
      'http-handler',
      'inbox',
      'kept-asks',
      'long-runs',
      'mcp-server',
      'mcp-tools',
      'postgres-handler',
      'quickstart',
      'replay',
      'sessions',
      'stop',
      'subagents',
      'tools-that-ask',
      'use-chat',
      'who-may-answer',
    ]);
  });

  it('tools-that-ask: a tool pauses on a form mid-execution; the value runs resume, execute ran once', async () => {
    const output = await runExample('tools-that-ask');
    expect(output).toMatch(/^input \{\s+message: '3 boxes hold K562: which one\?'/);
    expect(output.trim().split('\n').at(-1)).toBe('Done: {"thawed":"K562","box":"B2-15"} (lookups: 1)');
  });

  it('ai-sdk-model: an AI SDK 6 provider model pauses on its tool call and resumes with its usage', async () => {
    const lines = (await runExample('ai-sdk-model')).trim().split('\n');
    expect(lines).toEqual(['needs_input toolu_01', 'Noted: {"answers":{"Cell line":"K562-dTAG"}} 120']);
  });

  it('agent-essentials: a refused prose answer goes back with its issues; output is the typed value', async () => {
    const lines = (await runExample('agent-essentials')).trim().split('\n');
    expect(lines).toEqual([
      'Plan thaws for the Kim lab. Answer with JSON only.',
      '{ temperature: 0, maxOutputTokens: 200, seed: 7 }',
      'thaw_planner',
      'Your final answer does not match the required output format.',
      'completed 2 K562',
    ]);
  });

  it('getting-started: the README quick start pauses on its question, and the answer completes the run', async () => {
    const lines = (await runExample('getting-started', { env: QUICK_START_ENV })).trim().split('\n');
    expect(lines).toEqual(['needs_input', 'completed Noted: {"answers":{"Cell line":"K562-dTAG"}}']);
  });

  it('getting-started: the quick start’s agent refuses a snapshot its holder edited (SNAPSHOT_TAMPERED), and resumes the one it got', async () => {
    const lines = (await runExample('getting-started', { env: QUICK_START_ENV, append: TAMPERING }))
      .trim()
      .split('\n');
    expect(lines.slice(2)).toEqual([
      'refused edited SnapshotError SNAPSHOT_TAMPERED',
      'resumed unchanged completed',
    ]);
  });

  it('getting-started: the quick start will not run unsigned: without TURNKIT_SECRET it stops and says so', async () => {
    await expect(runExample('getting-started', { env: { TURNKIT_SECRET: '' } })).rejects.toThrow(
      /Set TURNKIT_SECRET/,
    );
  });

  it('quickstart: pauses, stores the snapshot in a file, and resumes from it', async () => {
    const lines = (await runExample('quickstart')).trim().split('\n');
    expect(lines[0]).toBe('needs_input');
    expect(lines.join('\n')).toContain("header: 'Cell line'");
    expect(lines.at(-1)).toBe('completed Found it: {"cellLine":"K562-dTAG","vials":3,"rack":"B2"}');
  });

  it('stop: a turn another caller stops ends aborted after its running tool; a new message continues it', async () => {
    const lines = (await runExample('stop')).trim().split('\n');
    expect(lines).toEqual([
      'requested running',
      'aborted {"thawed":"K562"}',
      'completed Thawed. Shall I label it?',
    ]);
  });

  it('who-may-answer: a non-assignee is refused; two distinct approvals run the tool', async () => {
    const lines = (await runExample('who-may-answer')).trim().split('\n');
    expect(lines).toEqual([
      "[ 'cfo', 'controller', 'treasurer' ] 2",
      'NOT_ASSIGNEE',
      'needs_input 1',
      'completed',
    ]);
  });

  it('budgets: a run past its cost pauses, extend goes on, reject ends budget_exceeded', async () => {
    const lines = (await runExample('budgets')).trim().split('\n');
    expect(lines[0]).toBe('completed 0.02');
    expect(lines[1]).toMatch(
      /^budget \{"spent":\{"steps":1,.*"costUsd":0\.02\},"limit":\{"costUsd":0\.02\}\}$/,
    );
    expect(lines.slice(2)).toEqual(['completed Draft two. { costUsd: 0.04 }', 'budget_exceeded']);
  });

  it('inbox: lists the asks of every run oldest first, announces each once, and drops an answered one', async () => {
    const output = await runExample('inbox');
    expect(output).toMatch(/^ask question\nask question\n/);
    expect(output).toContain("'question: Which K562 line do you mean?'");
    expect(output.trim().split('\n').slice(-2)).toEqual(['1', '1']);
  });

  it('answer-links: a one-click link answers once; using it again is LINK_INVALID', async () => {
    const lines = (await runExample('answer-links')).trim().split('\n');
    expect(lines).toEqual(['completed', 'LINK_INVALID false']);
  });

  it('long-runs: the oldest messages are compacted into one summary; the window stays small', async () => {
    const lines = (await runExample('long-runs')).trim().split('\n');
    expect(lines[0]).toMatch(/^compacted \d+ messages, kept 2, \d+ → \d+ tokens$/);
    expect(lines.at(-2)).toMatch(/^\d+ Summary of the earlier conversation:$/);
    expect(lines.at(-1)).toBe('Boxes so far: box A1, box A2, box A3, box A4.');
  });

  it('forks: history lists the points; a fork just before the answer is answered differently, the source unchanged', async () => {
    const lines = (await runExample('forks')).trim().split('\n');
    expect(lines).toEqual([
      'Noted: {"answers":{"Cell line":"K562"}}',
      '1:start 2:paused 3:answered 4:completed',
      'needs_input true 2',
      'Noted: {"answers":{"Cell line":"K562-dTAG"}}',
      'Noted: {"answers":{"Cell line":"K562"}}',
    ]);
  });

  it('sessions: pauses for approval and lets exactly one of two concurrent decisions win', async () => {
    const output = await runExample('sessions');
    expect(output).toMatch(/^approval \{\s+toolName: 'record_thaw'/);
    expect(output.trim().split('\n').at(-1)).toBe("[ 'completed', true ]");
  });

  it('deploying-new-code: a tightened tool gets tool_changed, a loosened one runs, a charge in doubt is reconciled', async () => {
    const output = await runExample('deploying-new-code');
    expect(output).toMatch(/type: 'tool_changed',[\s\S]*reason: 'schema_changed'/);
    const lines = output.trim().split('\n');
    expect(lines).toContain('tool_changed');
    expect(lines).toContain('Noted: {"recorded":true,"cellLine":"K562","vials":1}');
    expect(output).toMatch(/type: 'tool_in_doubt',[\s\S]*policy: 'reconcile'/);
    expect(lines.at(-1)).toBe('Done: {"charged":5,"found":true,"key":"run_payment:call_0_0"} 1');
  });

  it('subagents: a child question pauses the parent and the answer is routed down', async () => {
    const lines = (await runExample('subagents')).trim().split('\n');
    expect(lines).toEqual(["[ 'lead', 'researcher' ]", 'Plan: thaw K562. Use RPMI-1640.']);
  });

  it('handoffs: a run handed to the freezer desk pauses there and resumes there, given the root', async () => {
    const lines = (await runExample('handoffs')).trim().split('\n');
    expect(lines).toEqual(["freezer [ 'freezer' ]", 'freezer {"cellLine":"K562","vials":3}']);
  });

  it('hooks-redact: an afterTool hook masks what the model and the transcript see', async () => {
    const lines = (await runExample('hooks-redact')).trim().split('\n');
    expect(lines).toEqual(['{"name":"Ada","ssn":"***-**-****","ward":"B"}']);
  });

  it('hooks-policy: a spending policy asks finance, who lowers the amount; the edit is what runs', async () => {
    const lines = (await runExample('hooks-policy')).trim().split('\n');
    expect(lines[0]).toBe('review {');
    expect(lines).toContain("  hook: 'spending',");
    expect(lines).toContain("    input: { orderId: 'A-17', amount: 250 }");
    expect(lines.at(-1)).toBe(
      'completed {"refunded":100,"orderId":"A-17","input_edited_by_user":{"orderId":"A-17","amount":100}}',
    );
  });

  it('hooks-review: a reply that promises money waits for a person, who edits it before it is sent', async () => {
    const lines = (await runExample('hooks-review')).trim().split('\n');
    expect(lines).toContain("  subject: { text: 'We will refund you 500 EUR today.', toolCalls: [] },");
    expect(lines.at(-1)).toBe('We will refund you 50 EUR today.');
  });

  it('kept-asks: an ask escalates, then reminds, each once, and the escalated assignee answers', async () => {
    const lines = (await runExample('kept-asks')).trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 2)).toEqual([
      "[ 'ada' ] procurement:1 asks you something",
      "[ 'grace' ] Escalated to you: procurement:1",
    ]);
    expect(lines[2]).toMatch(/^\[ 'grace' \] Reminder: procurement:1 expires at \d{4}-\d\d-\d\dT/);
    expect(lines[3]).toBe('completed Ordered.');
  });

  it('replay: a stored run replays with no divergence, and a change that drops its question is found', async () => {
    const lines = (await runExample('replay')).trim().split('\n');
    expect(lines).toEqual(['0 completed', "[ 'pause at turn 1', 'tool_changed at turn 1' ]"]);
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

  it('frontend-ai-sdk: AI SDK’s Chat (AbstractChat over DefaultChatTransport) answers the question at the mounted /chat', async () => {
    const lines = (await runFrontend('frontend-ai-sdk')).trim().split('\n');
    expect(lines).toEqual(['completed Noted: {"answers":{"Cell line":"K562-dTAG"}}']);
  });

  it('frontend-ag-ui: HttpAgent gets the question as an interrupt at the mounted /ag-ui and resumes it', async () => {
    const lines = (await runFrontend('frontend-ag-ui')).trim().split('\n');
    expect(lines).toEqual([
      'input_required Which K562 line do you mean?',
      'Noted: {"answers":{"Cell line":"K562-dTAG"}}',
    ]);
  });

  it('use-chat: the React component type-checks against @ai-sdk/react, ai and the client subpath', async () => {
    await writeExamples(['use-chat'], 'tsx');
    await writeFile(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.base.json',
        compilerOptions: { jsx: 'react-jsx', noEmit: true, types: [] },
        files: ['use-chat.tsx'],
      }),
    );
    const tsc = join(here, '..', 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', scratch]).catch(
      (error: { stdout: string }) => error,
    );
    expect('stdout' in result ? result.stdout : '').toBe('');
  });

  it('mcp-tools: an MCP tool asking for input pauses the run; the answer retries the call', async () => {
    const output = await runExample('mcp-tools');
    expect(output).toMatch(
      /^Map\(1\) \{ 'freezer\.thaw' => 'freezer_thaw' \}\ninput \{\s+message: 'Which box of K562\?'/,
    );
    expect(output.trim().split('\n').at(-1)).toBe('Done: Thawed K562 from B2-15');
  });

  it('mcp-server: an MCP client with an elicitation handler drives the agent through its question', async () => {
    const lines = (await runExample('mcp-server')).trim().split('\n');
    expect(lines[0]).toBe('asked: Which K562 line do you mean?');
    expect(lines.slice(1).join('\n')).toContain(`text: 'Noted: {"answers":{"Cell line":"K562-dTAG"}}'`);
  });

  it('a2a: an agent calling an agent served over A2A pauses on its question; the answer reaches it', async () => {
    const lines = (await runExample('a2a')).trim().split('\n');
    expect(lines).toEqual([
      'needs_input Which K562 line?',
      'Done. Thawing: {"answers":{"Cell line":"K562-dTAG"}}',
    ]);
  });

  it('event-log: writes the run history as JSON lines and reads it back', async () => {
    const output = await runExample('event-log');
    expect(output.trim()).toBe('turn_started model_started model_finished interaction_requested turn_paused');
  });

  it.skipIf(!pgUrl && process.env.CI !== 'true')(
    'postgres-handler: one HTTP request per turn, with the run kept in PostgreSQL, surviving a database restart',
    async () => {
      if (!pgUrl) throw new Error('TURNKIT_PG_URL must be set under CI');
      const output = await runExample('postgres-handler', {
        entry: 'postgres-handler-harness.ts',
        env: { DATABASE_URL: pgUrl, PGAPPNAME: `turnkit-readme-${process.pid}-${Date.now()}` },
      });
      const { started, answered, terminated, afterRestart } = JSON.parse(output) as {
        started: { runId: string; status: string; pending: { kind: string }[] };
        answered: { runId: string; status: string; output: string };
        terminated: number;
        afterRestart: { status: string };
      };
      // The harness ended the pool's connections as a restart would; the process served on.
      expect(terminated).toBeGreaterThan(0);
      expect(afterRestart.status).toBe('needs_input');
      expect(started.status).toBe('needs_input');
      expect(started.pending[0]?.kind).toBe('question');
      expect(answered).toMatchObject({
        runId: started.runId,
        status: 'completed',
        output: 'Noted: {"answers":{"Cell line":"K562-dTAG"}}',
      });
    },
  );

  it.skipIf(!redisUrl && process.env.CI !== 'true')(
    'background-turns: 202 at once, a worker plays the turn, the event stream follows it to its question',
    async () => {
      if (!redisUrl) throw new Error('TURNKIT_REDIS_URL must be set under CI');
      const lines = (await runExample('background-turns', { env: { REDIS_URL: redisUrl } }))
        .trim()
        .split('\n');
      expect(lines).toEqual(['202 running true', "needs_input [ 'question' ]"]);
    },
  );
});
