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

/** Runs a bundled fixture with `args` in a new Node process and parses what it printed. */
export async function runChild<T>(bundle: string, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [bundle, ...args], { timeout: 30_000 });
  return JSON.parse(stdout) as T;
}
