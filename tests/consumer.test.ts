/**
 * TurnKit as someone else's project gets it (DESIGN §19): `npm pack` core and adapters, install the
 * tarballs into a fresh `type: module` project outside the workspace (with their registry
 * dependencies, from npm's cache where it holds them), type-check the README's Getting started, the
 * Postgres handler and the useChat server under `moduleResolution` node16 and bundler, and run the
 * Getting started, the Postgres handler and the useChat server: the README's `frontend-server.ts`
 * started as its own process, beside the user's agent with a tool that needs approval, and driven
 * over real HTTP by AI SDK's `Chat` over `DefaultChatTransport` (start → approval → completed).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedExamples } from './fixtures/doc-blocks.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const pgUrl = process.env.TURNKIT_PG_URL;

/** The user's files, as the READMEs show them: file name → example name. */
const FILES: Record<string, string> = {
  'agent.ts': 'agent',
  'quickstart.ts': 'getting-started',
  'postgres-handler.ts': 'postgres-handler',
  'frontend-server.ts': 'frontend-server',
};

/** What the user installs beside TurnKit, at the versions the workspace holds (so npm's cache has them). */
const REGISTRY_PACKAGES = [
  'zod',
  'pg',
  '@hono/node-server',
  'ai',
  '@ai-sdk/react',
  'react',
  'typescript',
  'tsx',
  '@types/node',
  '@types/pg',
];

async function workspaceVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  return manifest.version;
}

/** The named examples of the READMEs and the docs pages. */
async function readmeExamples(): Promise<Map<string, string>> {
  return new Map((await namedExamples()).map((example) => [example.name, example.code]));
}

/**
 * The useChat server's folder (`chat/`): the README's `frontend-server.ts`, the user's own
 * `agent.ts` (a tool that needs approval, on a scripted model) and the client a user's page runs,
 * AI SDK's `Chat` over `DefaultChatTransport`, here in Node, printing what it saw.
 */
const CHAT_AGENT = `import { defineAgent, defineTool } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

const thawVials = defineTool({
  name: 'thaw_vials',
  description: 'Take vials out of the freezer.',
  input: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
  needsApproval: true,
  execute: async (input) => ({ thawed: input.cellLine, vials: input.vials }),
});

export const agent = defineAgent({
  name: 'inventory',
  instructions: 'You are an LN2 inventory assistant.',
  model: scriptedModel([
    { toolCalls: [{ name: 'thaw_vials', arguments: { cellLine: 'K562', vials: 1 } }] },
    (request) => \`Done: \${request.messages.at(-1)?.content}\`,
  ]),
  tools: [thawVials],
});
`;

const CHAT_CLIENT = `import { Chat } from '@ai-sdk/react';
import { turnkitMetadataOf, turnkitSendAutomaticallyWhen } from '@turnkit/adapters/ai-sdk/client';
import { DefaultChatTransport, isToolUIPart, type UIMessage } from 'ai';

let turnEnded: (message: UIMessage) => void = () => {};
const nextTurn = () => new Promise<UIMessage>((resolve) => (turnEnded = resolve));
const chat = new Chat({
  id: crypto.randomUUID(),
  transport: new DefaultChatTransport({ api: \`http://127.0.0.1:\${process.env.PORT}/api/chat\` }),
  sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
  onFinish: ({ message }) => turnEnded(message),
});

let turn = nextTurn();
await chat.sendMessage({ text: 'Thaw one K562 vial' });
const started = await turn;
const asking = started.parts.find((part) => isToolUIPart(part) && part.state === 'approval-requested');
if (!asking || !isToolUIPart(asking) || asking.state !== 'approval-requested') throw new Error('no approval asked');
turn = nextTurn();
await chat.addToolApprovalResponse({ id: asking.approval.id, approved: true });
const reply = await turn; // turnkitSendAutomaticallyWhen posted the approval
const tool = reply.parts.find((part) => isToolUIPart(part) && part.toolCallId === asking.toolCallId);
console.log(
  JSON.stringify({
    started: { status: turnkitMetadataOf(started)?.status, tool: asking.type, input: asking.input },
    completed: {
      status: turnkitMetadataOf(reply)?.status,
      tool: tool && isToolUIPart(tool) ? { state: tool.state, output: tool.output } : null,
      text: reply.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    },
    messages: chat.messages.length,
  }),
);
`;

let project = '';

/** Runs a command in the consumer project, with a clean npm environment (not the workspace's). */
function inProject(command: string, args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  return run(command, args, { cwd: project, env: { ...clean, ...env }, timeout: 240_000 });
}

/**
 * Starts the README's `frontend-server.ts` as the user does (`tsx`, in `chat/`, its file store under
 * `chat/.turnkit`), one Node process this test can end by its handle.
 */
function startServer(port: number): ChildProcess & { output: string[] } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'frontend-server.ts'], {
    cwd: join(project, 'chat'),
    env: { ...clean, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return Object.assign(child, { output });
}

/** Waits until the server answers on `port` (any response), or fails with what it printed. */
async function listening(server: ChildProcess & { output: string[] }, port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (server.exitCode !== null) throw new Error(`the server exited: ${server.output.join('')}`);
    const answered = await fetch(`http://127.0.0.1:${port}/api/runs/none`).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server never listened: ${server.output.join('')}`);
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'turnkit-consumer-'));
  const tarballs = join(project, 'tarballs');
  await mkdir(tarballs);
  const packed: string[] = [];
  for (const name of ['core', 'adapters']) {
    const { stdout } = await run('npm', ['pack', '--pack-destination', tarballs], {
      cwd: join(root, 'packages', name),
    });
    packed.push(join(tarballs, stdout.trim().split('\n').at(-1)!));
  }
  const dependencies: Record<string, string> = {};
  for (const name of REGISTRY_PACKAGES) dependencies[name] = await workspaceVersion(name);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-agent', private: true, type: 'module', dependencies }, null, 2),
  );
  await inProject('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packed]);
  const examples = await readmeExamples();
  for (const [file, example] of Object.entries(FILES)) {
    const code = examples.get(example);
    if (!code) throw new Error(`no README has an example named ${example}`);
    await writeFile(join(project, file), code);
  }
  for (const harness of ['postgres-handler-harness.ts'])
    await copyFile(join(here, 'fixtures', harness), join(project, harness));
  await mkdir(join(project, 'chat'));
  await writeFile(join(project, 'chat', 'frontend-server.ts'), examples.get('frontend-server')!);
  await writeFile(join(project, 'chat', 'agent.ts'), CHAT_AGENT);
  await writeFile(join(project, 'chat', 'client.ts'), CHAT_CLIENT);
}, 300_000);

afterAll(() => (project ? rm(project, { recursive: true, force: true }) : undefined));

describe('a project that installs the packed packages', () => {
  it('holds @turnkit/core and @turnkit/adapters from the tarballs, not links to the workspace', async () => {
    const { stdout } = await inProject('npm', ['ls', '@turnkit/core', '@turnkit/adapters', '--json']);
    const tree = JSON.parse(stdout).dependencies;
    expect(tree['@turnkit/core'].resolved).toMatch(/\/tarballs\/turnkit-core-.*\.tgz$/);
    expect(tree['@turnkit/adapters'].resolved).toMatch(/\/tarballs\/turnkit-adapters-.*\.tgz$/);
  });

  it.each([
    ['node16', 'node16'],
    ['bundler', 'esnext'],
  ])(
    'type-checks the README code under moduleResolution %s',
    async (resolution, module) => {
      const config = `tsconfig.${resolution}.json`;
      await writeFile(
        join(project, config),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'es2022',
            module,
            moduleResolution: resolution,
            lib: ['es2022', 'dom'],
            types: ['node'],
            skipLibCheck: true,
          },
          files: [...Object.keys(FILES), 'chat/frontend-server.ts', 'chat/agent.ts', 'chat/client.ts'],
        }),
      );
      const result = await inProject('npx', ['tsc', '-p', config]).catch(
        (error: { stdout: string }) => error,
      );
      expect('stdout' in result ? result.stdout : '').toBe('');
    },
    240_000,
  );

  it('runs the Getting started as the README says: npx tsx quickstart.ts', async () => {
    const { stdout } = await inProject('npx', ['tsx', 'quickstart.ts']);
    expect(stdout.trim().split('\n')).toEqual([
      'needs_input',
      'completed Noted: {"answers":{"Cell line":"K562-dTAG"}}',
    ]);
  });

  it('runs the useChat server: AI SDK’s Chat over real HTTP plays start → approval → completed', async () => {
    const port = await freePort();
    const server = startServer(port);
    try {
      await listening(server, port);
      const { stdout } = await inProject('npx', ['tsx', 'chat/client.ts'], { PORT: String(port) });
      expect(JSON.parse(stdout)).toEqual({
        started: {
          status: 'needs_input',
          tool: 'tool-thaw_vials',
          input: { cellLine: 'K562', vials: 1 },
        },
        completed: {
          status: 'completed',
          tool: { state: 'output-available', output: { thawed: 'K562', vials: 1 } },
          text: 'Done: {"thawed":"K562","vials":1}',
        },
        messages: 2,
      });
    } finally {
      server.kill();
    }
  }, 120_000);

  it.skipIf(!pgUrl && process.env.CI !== 'true')(
    'runs the Postgres handler: one request per turn, the run kept in PostgreSQL',
    async () => {
      if (!pgUrl) throw new Error('TURNKIT_PG_URL must be set under CI');
      const { stdout } = await inProject('npx', ['tsx', 'postgres-handler-harness.ts'], {
        DATABASE_URL: pgUrl,
        PGAPPNAME: `turnkit-consumer-${process.pid}-${Date.now()}`,
      });
      const { started, answered } = JSON.parse(stdout);
      expect(started.status).toBe('needs_input');
      expect(answered).toMatchObject({
        status: 'completed',
        output: 'Noted: {"answers":{"Cell line":"K562-dTAG"}}',
      });
    },
  );
});
