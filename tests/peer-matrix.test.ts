/**
 * The peer matrix (DESIGN §19, §25): peer ranges are tested, not hoped. Two fresh consumer projects
 * install the packed packages with a plain `npm install` beside the lowest and the highest major
 * each optional peer's range in `packages/adapters/package.json` allows (with the AI SDK line and
 * OpenAI provider of each `@ai-sdk/provider` major), type-check the README's examples and the
 * matrix's consumer script under TypeScript 5.9 and 7 with `moduleResolution` node16 and bundler
 * (with every declaration checked, and as a `tsc --init` project with `exactOptionalPropertyTypes`), and
 * run that script on Node 22, 24 and 26 (from npm): a question → answer cycle through `openAIModel`,
 * `aiSdkModel`, `redisStore` with `bullmqQueue`, and `postgresStore`, an MCP tool's
 * `input_required` → value cycle through `mcpTools`, and an A2A agent's question through `a2aAgentTool`.
 */
import { copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProject,
  createConsumerProject,
  INSTALL_TIMEOUT_MS,
  README_FILES,
  workspaceVersion,
  writeTsconfig,
} from './consumer-project.js';
import { nodeBinary } from './node-binaries.js';
import { root } from './packed.js';

/** The Nodes the packages say they run on (`engines.node` >=22) up to the newest. */
const NODES = [22, 24, 26];
const redisUrl = process.env.TURNKIT_REDIS_URL;
const pgUrl = process.env.TURNKIT_PG_URL;
const inCi = process.env.CI === 'true';

/** Tools of the project, at the workspace's versions, and TypeScript 7 beside 5.9. */
const TOOLS = ['zod', '@hono/node-server', 'typescript', '@types/node', '@types/pg'];

type ColumnName = 'lowest' | 'highest';

const manifest = JSON.parse(await readFile(join(root, 'packages', 'adapters', 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
};

/** Each `^x.y.z` alternative of a peer's range, lowest first: `^5.0.0 || ^6.0.0` → both. */
function alternatives(range: string): string[] {
  const parts = range.split('||').map((part) => part.trim());
  if (!parts.every((part) => /^\^\d+\.\d+\.\d+$/.test(part)))
    throw new Error(`cannot read the peer range ${range}`);
  return parts.sort((a, b) => majorOf(a) - majorOf(b));
}

/** The major of `^6.0.0`, `6.3.1`; NaN for anything else. */
function majorOf(version: string): number {
  return Number(/\d+/.exec(version)?.[0]);
}

/**
 * What each column's project asks npm for: every optional peer at the lowest, then the highest
 * major its range allows (a test below holds them to `packages/adapters/package.json`), and beside
 * `@ai-sdk/provider` the AI SDK line and OpenAI provider of that spec version. Written out, not
 * derived, so that narrowing a range again (`openai ^6`) fails the highest column's install with
 * ERESOLVE, as it fails a user's.
 */
const COLUMNS: Record<ColumnName, Record<string, string>> = {
  lowest: {
    openai: '^6.0.0',
    '@ai-sdk/provider': '^3.0.0',
    ai: '^6.0.0',
    '@ai-sdk/openai': '^3.0.0',
    bullmq: '^5.0.0',
    ioredis: '^5.0.0',
    pg: '^8.0.0',
    '@opentelemetry/api': '^1.9.0',
    '@modelcontextprotocol/client': '^2.4.0',
    '@modelcontextprotocol/server': '^2.4.0',
    '@a2a-js/sdk': '^1.3.0',
  },
  highest: {
    openai: '^7.0.0',
    '@ai-sdk/provider': '^4.0.0',
    ai: '^7.0.0',
    '@ai-sdk/openai': '^4.0.0',
    bullmq: '^6.0.0',
    ioredis: '^6.0.0',
    pg: '^8.0.0',
    '@opentelemetry/api': '^1.9.0',
    '@modelcontextprotocol/client': '^2.4.0',
    '@modelcontextprotocol/server': '^2.4.0',
    '@a2a-js/sdk': '^1.3.0',
  },
};

/** The README's examples and the matrix's script, as each column type-checks them. */
const CHECKED_FILES = [...Object.keys(README_FILES), 'cycles.ts'];
const TYPESCRIPTS = [
  ['5.9', 'typescript'],
  ['7', 'typescript-7'],
] as const;
const RESOLUTIONS = [
  ['node16', 'node16'],
  ['bundler', 'esnext'],
] as const;

const projects = new Map<ColumnName, Promise<ConsumerProject>>();

/** A column's project, made once (both columns install at the same time). */
function projectOf(column: ColumnName): Promise<ConsumerProject> {
  let project = projects.get(column);
  if (!project) {
    project = (async () => {
      const dependencies: Record<string, string> = {
        ...COLUMNS[column],
        'typescript-7': 'npm:typescript@^7.0.0',
        // @ai-sdk/provider's declarations import 'json-schema' without depending on its types: a
        // project that checks its libraries' declarations (as this one does) installs them.
        '@types/json-schema': '^7.0.15',
      };
      for (const name of TOOLS) dependencies[name] = await workspaceVersion(name);
      const made = await createConsumerProject(`matrix-${column}`, dependencies);
      await copyFile(join(root, 'tests', 'fixtures', 'peer-matrix-cycles.ts'), join(made.dir, 'cycles.ts'));
      return made;
    })();
    projects.set(column, project);
  }
  return project;
}

/** The outcome of each cycle, as the consumer script printed it. */
interface ScriptRun {
  node: string;
  outcomes: Record<string, unknown>;
}

const scriptRuns = new Map<string, Promise<ScriptRun>>();

/** Runs the consumer script of a column on a Node, once; every adapter's test reads its outcome. */
function scriptRun(column: ColumnName, major: number): Promise<ScriptRun> {
  const key = `${column}/${major}`;
  let outcome = scriptRuns.get(key);
  if (!outcome) {
    outcome = (async () => {
      const project = await projectOf(column);
      const { stdout } = await project.run(
        await nodeBinary(major),
        ['--disable-warning=ExperimentalWarning', 'cycles.ts'],
        {
          REDIS_URL: redisUrl ?? '',
          DATABASE_URL: pgUrl ?? '',
          RUN_TAG: `${column}_${major}_${process.pid}`,
        },
      );
      return JSON.parse(stdout) as ScriptRun;
    })();
    scriptRuns.set(key, outcome);
  }
  return outcome;
}

// Both columns install, and the Nodes download, at once; a column that fails to install fails its
// own tests (with npm's output), not the other column's.
beforeAll(async () => {
  await Promise.allSettled([projectOf('lowest'), projectOf('highest'), ...NODES.map(nodeBinary)]);
}, INSTALL_TIMEOUT_MS + 120_000);

afterAll(async () => {
  for (const project of projects.values()) {
    const { dir } = await project.catch(() => ({ dir: '' }));
    if (dir) await rm(dir, { recursive: true, force: true });
  }
});

describe('the peer matrix', () => {
  it.each(Object.entries(manifest.peerDependencies))(
    'installs %s at the lowest and the highest major of its range (%s)',
    (name, range) => {
      const majors = alternatives(range).map(majorOf);
      expect([majorOf(COLUMNS.lowest[name] ?? '?'), majorOf(COLUMNS.highest[name] ?? '?')]).toEqual([
        majors[0],
        majors.at(-1),
      ]);
    },
  );
});

/** The cycle every adapter plays: the question, then the answer reaches the model. */
const CYCLE = {
  paused: { status: 'needs_input', pending: ['question'] },
  answered: { status: 'completed', output: 'Noted: {"answers":{"Cell line":"K562-dTAG"}}' },
};

describe.each(['lowest', 'highest'] as const)('the %s majors of the peers', (column) => {
  it('install beside the tarballs with a plain npm install, every peer in range (npm ls)', async () => {
    const project = await projectOf(column);
    const { stdout } = await project.run('npm', ['ls', '--json', ...Object.keys(COLUMNS[column])]);
    const tree = JSON.parse(stdout).dependencies as Record<string, { version: string }>;
    for (const [name, range] of Object.entries(COLUMNS[column]))
      expect(`${name}@${majorOf(tree[name]!.version)}`).toBe(`${name}@${majorOf(range)}`);
    await project.run('npm', ['ls', '--all']); // rejects on an invalid or missing peer
  });

  it.each(
    TYPESCRIPTS.flatMap(([version, pkg]) =>
      RESOLUTIONS.map(([resolution, module]) => [version, resolution, pkg, module]),
    ),
  )(
    'type-check under TypeScript %s, moduleResolution %s',
    async (version, resolution, pkg, module) => {
      const project = await projectOf(column);
      const installed = JSON.parse(
        await readFile(join(project.dir, 'node_modules', pkg, 'package.json'), 'utf8'),
      );
      expect(installed.version).toMatch(new RegExp(`^${version.replace('.', '\\.')}\\.`));
      const tsc = (config: string) =>
        project
          .run(process.execPath, [join('node_modules', pkg, 'bin', 'tsc'), '-p', config])
          .catch((error: { stdout: string }) => error);
      // libCheck: TurnKit's own declarations are checked under each TypeScript, beside each column's
      // peers, not only used (skipLibCheck would pass a .d.ts that names a type a peer lacks). Without
      // exactOptionalPropertyTypes: the declarations of xstate 5 and @ai-sdk/provider-utils do not
      // type-check under it themselves.
      const declarations = await writeTsconfig(project.dir, `${pkg}.${resolution}`, {
        resolution,
        module,
        files: CHECKED_FILES,
        libCheck: true,
        exactOptional: false,
      });
      const checked = await tsc(declarations);
      expect('stdout' in checked ? checked.stdout : '').toBe('');
      // The user's files as a `tsc --init` project checks them: exactOptionalPropertyTypes, skipLibCheck.
      const strict = await writeTsconfig(project.dir, `${pkg}.${resolution}.strict`, {
        resolution,
        module,
        files: CHECKED_FILES,
      });
      const strictly = await tsc(strict);
      expect('stdout' in strictly ? strictly.stdout : '').toBe('');
    },
    240_000,
  );

  describe.each(NODES)('on Node %i', (major) => {
    it('runs the consumer script on that Node', async () => {
      expect((await scriptRun(column, major)).node).toMatch(new RegExp(`^v${major}\\.`));
    });

    it.each(['openai', 'aiSdk'])(
      'plays a question → answer cycle through %s on a Chat Completions fake',
      async (adapter) => {
        expect((await scriptRun(column, major)).outcomes[adapter]).toEqual({ ...CYCLE, modelCalls: 2 });
      },
    );

    it('plays an input_required → value cycle through mcpTools on an MCP server', async () => {
      expect((await scriptRun(column, major)).outcomes.mcp).toEqual({
        paused: { status: 'needs_input', pending: ['input'] },
        answered: { status: 'completed', output: 'Done: Thawed K562 from B2-15' },
      });
    });

    it('plays a question → answer cycle through a2aAgentTool on an agent served by a2aProtocol', async () => {
      expect((await scriptRun(column, major)).outcomes.a2a).toEqual({
        paused: { status: 'needs_input', pending: ['question'] },
        answered: { status: 'completed', output: 'Done: Noted: {"answers":{"Cell line":"K562-dTAG"}}' },
      });
    });

    it.skipIf(!redisUrl && !inCi)(
      'plays a question → answer cycle on redisStore with bullmqQueue workers',
      async () => {
        if (!redisUrl) throw new Error('TURNKIT_REDIS_URL must be set under CI');
        expect((await scriptRun(column, major)).outcomes.redisBullmq).toEqual(CYCLE);
      },
    );

    it.skipIf(!pgUrl && !inCi)(
      'plays a question → answer cycle through sessions on postgresStore',
      async () => {
        if (!pgUrl) throw new Error('TURNKIT_PG_URL must be set under CI');
        expect((await scriptRun(column, major)).outcomes.postgres).toEqual(CYCLE);
      },
    );
  });
});
