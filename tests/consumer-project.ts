/**
 * A fresh project outside the workspace that installs the packed packages as a user does (DESIGN
 * §19): its own `package.json` of registry dependencies, then a plain `npm install` of the tarballs
 * (no `--legacy-peer-deps`, no `--force`), with npm's cache where it holds the packages, and the
 * README's examples written into it. Shared by the consumer test and the peer matrix.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { namedExamples } from './fixtures/doc-blocks.js';
import { packedTarballsFor, root } from './packed.js';

const execute = promisify(execFile);

/**
 * How long a project's `npm install` may take. Alone it takes under a minute; in a full `npm test`
 * on two cores, with both peer-matrix columns and the consumer installing at once beside the other
 * packages' tests, npm's resolving and unpacking went past four minutes (CI, round 4). A slow
 * install is not what these tests are about; a hung one still ends.
 */
export const INSTALL_TIMEOUT_MS = 600_000;

/** The user's files, as the READMEs and the guides show them: file name → example name. */
export const README_FILES: Record<string, string> = {
  'agent.ts': 'agent',
  'quickstart.ts': 'getting-started',
  'postgres-handler.ts': 'postgres-handler',
  'frontend-server.ts': 'frontend-server',
  'http-handler.ts': 'http-handler',
};

/** A consumer project on disk. */
export interface ConsumerProject {
  dir: string;
  /** Runs a command in the project, with a clean npm environment (not the workspace's). */
  run(
    command: string,
    args: string[],
    env?: Record<string, string>,
  ): Promise<{ stdout: string; stderr: string }>;
}

/** The version of a package the workspace holds (so npm's cache has it). */
export async function workspaceVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  return manifest.version;
}

/** The process's environment without the `npm_*` variables of the workspace's npm script. */
export function cleanEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  return { ...clean, ...env };
}

/**
 * Writes `tsconfig.<name>.json` in `dir`: a user's strict project under `moduleResolution`
 * `resolution` (`module` to match), checking `files`, with `exactOptionalPropertyTypes` on unless
 * `exactOptional` is false, as in a project `tsc --init` makes (an option filled from `process.env`
 * must take `undefined`). With `libCheck` the declarations installed in the project (TurnKit's
 * first) are type-checked too, not only used.
 */
export async function writeTsconfig(
  dir: string,
  name: string,
  {
    resolution,
    module,
    files,
    libCheck = false,
    exactOptional = true,
  }: {
    resolution: string;
    module: string;
    files: string[];
    libCheck?: boolean;
    exactOptional?: boolean;
  },
): Promise<string> {
  const config = `tsconfig.${name}.json`;
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: exactOptional,
    noEmit: true,
    target: 'es2022',
    module,
    moduleResolution: resolution,
    lib: ['es2022', 'dom'],
    types: ['node'],
    skipLibCheck: !libCheck,
  };
  await writeFile(join(dir, config), JSON.stringify({ compilerOptions, files }));
  return config;
}

/**
 * Makes a `type: module` project in a temporary folder named after `name`, with `dependencies` in
 * its `package.json`, installs the tarballs beside them with a plain `npm install`, and writes the
 * README's examples ({@link README_FILES}). Rejects with npm's output when the install fails.
 */
export async function createConsumerProject(
  name: string,
  dependencies: Record<string, string>,
): Promise<ConsumerProject> {
  const dir = await mkdtemp(join(tmpdir(), `turnkit-${name}-`));
  const project: ConsumerProject = {
    dir,
    run: (command, args, env) => execute(command, args, { cwd: dir, env: cleanEnv(env), timeout: 240_000 }),
  };
  const tarballs = await packedTarballsFor(dir);
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'my-agent', private: true, type: 'module', dependencies }, null, 2),
  );
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs];
  await execute('npm', install, { cwd: dir, env: cleanEnv(), timeout: INSTALL_TIMEOUT_MS }).catch(
    (error: { killed?: boolean; stdout?: string; stderr?: string; message: string }) => {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().slice(-4000);
      const why = error.killed
        ? `did not finish in ${INSTALL_TIMEOUT_MS / 1000} s and was stopped`
        : 'failed';
      throw new Error(`npm install in ${dir} ${why}:\n${output || error.message}`);
    },
  );
  const examples = new Map((await namedExamples()).map((example) => [example.name, example.code]));
  for (const [file, example] of Object.entries(README_FILES)) {
    const code = examples.get(example);
    if (!code) throw new Error(`no README has an example named ${example}`);
    await writeFile(join(dir, file), code);
  }
  return project;
}
