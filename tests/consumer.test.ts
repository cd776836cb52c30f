/**
 * TurnKit as someone else's project gets it (DESIGN §19): `npm pack` core and adapters, install the
 * tarballs into a fresh `type: module` project outside the workspace (with their registry
 * dependencies, from npm's cache where it holds them), type-check the README's Getting started, the
 * Postgres handler and the useChat server under `moduleResolution` node16 and bundler, and run the
 * Getting started and the Postgres handler.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
  'typescript',
  'tsx',
  '@types/node',
  '@types/pg',
];

async function workspaceVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  return manifest.version;
}

async function readmeExamples(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const readme of ['README.md', 'packages/adapters/README.md']) {
    const text = await readFile(join(root, readme), 'utf8');
    for (const match of text.matchAll(/```tsx?\n(\/\/ example: ([\w-]+)\n[\s\S]*?)```/g))
      found.set(match[2]!, match[1]!);
  }
  return found;
}

let project = '';

/** Runs a command in the consumer project, with a clean npm environment (not the workspace's). */
function inProject(command: string, args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  return run(command, args, { cwd: project, env: { ...clean, ...env }, timeout: 240_000 });
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
          files: Object.keys(FILES),
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
