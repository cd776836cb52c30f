/**
 * Runs a test fixture in another Node process: the fixture is bundled with esbuild (core resolved to
 * its source, like the tests themselves, so no build is needed) and started with `node`; its stdout
 * is parsed as one JSON value. Used where a test must prove that only the snapshot crosses.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);

/** Bundles `test/fixtures/<name>.ts` into a temporary `.mjs` file and returns its path. */
export async function bundleFixture(name: string): Promise<string> {
  const outfile = join(await mkdtemp(join(tmpdir(), 'turnkit-child-')), `${name}.mjs`);
  await build({
    entryPoints: [fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    // Some bundled dependencies are CommonJS and call require().
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    alias: {
      '@turnkit/core': fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url)),
    },
    logLevel: 'silent',
  });
  return outfile;
}

/** Options of {@link bundleProcesses}. */
export interface BundleProcessesOptions {
  /** Output name → fixture path relative to `test/` (e.g. `fixtures/turn-worker.ts`). */
  entries: Record<string, string>;
  /** Where the `.mjs` files go; the caller removes it. */
  outdir: string;
  /** Packages left as imports, resolved by Node from the output folder. Default `['pg-native']`. */
  external?: string[];
}

/**
 * Bundles fixtures that run as processes of their own (workers, servers) into `outdir` as
 * `<name>.mjs`, with core (and its testing entry) taken from source, so no build is needed.
 */
export async function bundleProcesses(options: BundleProcessesOptions): Promise<void> {
  const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
  await build({
    entryPoints: Object.fromEntries(
      Object.entries(options.entries).map(([name, path]) => [name, source(`../${path}`)]),
    ),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: options.outdir,
    outExtension: { '.js': '.mjs' },
    alias: {
      '@turnkit/core/testing': source('../../../core/src/testing/index.ts'),
      '@turnkit/core/store': source('../../../core/src/store.ts'),
      '@turnkit/core': source('../../../core/src/index.ts'),
    },
    external: options.external ?? ['pg-native'],
    // ioredis and pg are CommonJS and require Node's built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
}

/** Runs a bundled fixture with `args` in a new Node process and parses what it printed. */
export async function runChild<T>(bundle: string, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [bundle, ...args], { timeout: 30_000 });
  return JSON.parse(stdout) as T;
}
