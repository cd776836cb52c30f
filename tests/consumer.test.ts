/**
 * TurnKit as someone else's project gets it (DESIGN §19): the packed tarballs of core and adapters
 * (`npm pack`, once per build: `packed.ts`) installed into a fresh `type: module` project outside the
 * workspace (with their registry dependencies, from npm's cache where it holds them). There the
 * README's quick start, the Postgres handler, the useChat server and the runtimes guide's Node
 * server type-check under `moduleResolution` node16 and bundler (strict, with
 * `exactOptionalPropertyTypes`); the Getting started page's code type-checks under the
 * `tsconfig.json` the page gives; and the quick start, the Postgres handler and the useChat server
 * run: the README's `frontend-server.ts` started as its own process, beside the user's agent with a
 * tool that needs approval, and driven over real HTTP by AI SDK's `Chat` over
 * `DefaultChatTransport` (start → approval → completed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProject,
  cleanEnv,
  createConsumerProject,
  INSTALL_TIMEOUT_MS,
  README_FILES,
  workspaceVersion,
  writeTsconfig,
} from './consumer-project.js';
import { docBlocks, repoRoot } from './fixtures/doc-blocks.js';
import { freePort } from './free-port.js';

const here = dirname(fileURLToPath(import.meta.url));
const pgUrl = process.env.TURNKIT_PG_URL;

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

let project: ConsumerProject;

/** The `tsconfig.json` Getting started gives (its one JSON block with `compilerOptions`), as written. */
async function gettingStartedTsconfig(): Promise<string> {
  const page = await readFile(join(repoRoot, 'docs', 'getting-started.md'), 'utf8');
  const configs = [...page.matchAll(/^```json\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1]!)
    .filter((block) => block.includes('"compilerOptions"'));
  if (configs.length !== 1)
    throw new Error(`Getting started gives ${configs.length} tsconfig.json blocks, not one`);
  return configs[0]!;
}

/**
 * Starts the README's `frontend-server.ts` as the user does (`tsx`, in `chat/`, its file store under
 * `chat/.turnkit`), one Node process this test can end by its handle.
 */
function startServer(port: number): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'frontend-server.ts'], {
    cwd: join(project.dir, 'chat'),
    env: cleanEnv({ PORT: String(port) }),
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
  const dependencies: Record<string, string> = {};
  for (const name of REGISTRY_PACKAGES) dependencies[name] = await workspaceVersion(name);
  project = await createConsumerProject('consumer', dependencies);
  for (const harness of ['postgres-handler-harness.ts'])
    await copyFile(join(here, 'fixtures', harness), join(project.dir, harness));
  const frontendServer = await readFile(join(project.dir, 'frontend-server.ts'), 'utf8');
  await mkdir(join(project.dir, 'chat'));
  await writeFile(join(project.dir, 'chat', 'frontend-server.ts'), frontendServer);
  await writeFile(join(project.dir, 'chat', 'agent.ts'), CHAT_AGENT);
  await writeFile(join(project.dir, 'chat', 'client.ts'), CHAT_CLIENT);
}, INSTALL_TIMEOUT_MS + 120_000);

afterAll(() => (project ? rm(project.dir, { recursive: true, force: true }) : undefined));

describe('a project that installs the packed packages', () => {
  it('holds @turnkit/core and @turnkit/adapters from the tarballs, not links to the workspace', async () => {
    const { stdout } = await project.run('npm', ['ls', '@turnkit/core', '@turnkit/adapters', '--json']);
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
      const config = await writeTsconfig(project.dir, resolution, {
        resolution,
        module,
        files: [...Object.keys(README_FILES), 'chat/frontend-server.ts', 'chat/agent.ts', 'chat/client.ts'],
      });
      const result = await project
        .run('npx', ['tsc', '-p', config])
        .catch((error: { stdout: string }) => error);
      expect('stdout' in result ? result.stdout : '').toBe('');
    },
    240_000,
  );

  it('type-checks the Getting started page’s code under the tsconfig.json the page gives', async () => {
    await writeFile(join(project.dir, 'tsconfig.json'), await gettingStartedTsconfig());
    const files = ['agent.ts', 'quickstart.ts'];
    for (const block of await docBlocks()) {
      if (block.file !== 'docs/getting-started.md' || block.name === 'agent') continue;
      const file = `getting-started-L${block.line}.${block.lang}`;
      await writeFile(join(project.dir, file), block.code);
      files.push(file);
    }
    await writeFile(
      join(project.dir, 'tsconfig.getting-started.json'),
      JSON.stringify({ extends: './tsconfig.json', files }),
    );
    const result = await project
      .run('npx', ['tsc', '-p', 'tsconfig.getting-started.json'])
      .catch((error: { stdout: string }) => error);
    expect('stdout' in result ? result.stdout : '').toBe('');
    expect(files.length).toBeGreaterThan(3);
  }, 240_000);

  it('runs the README quick start as it says: TURNKIT_SECRET=… npx tsx quickstart.ts', async () => {
    const { stdout } = await project.run('npx', ['tsx', 'quickstart.ts'], {
      TURNKIT_SECRET: 'consumer-test-secret-0123456789abcdef',
    });
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
      const { stdout } = await project.run('npx', ['tsx', 'chat/client.ts'], { PORT: String(port) });
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
      const { stdout } = await project.run('npx', ['tsx', 'postgres-handler-harness.ts'], {
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
