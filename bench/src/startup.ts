/**
 * What a user pays before the first turn: `import('@turnkit/core')` in a fresh process, and the
 * size of the core bundle (minified + gzipped, zod left out: an app that defines tools has it anyway).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { summarize } from './report.js';

const IMPORT_SAMPLES = 7;

const run = promisify(execFile);

/** Imports resolve from core's folder: its own dependencies, and itself by name (a self-reference). */
const CORE_DIR = fileURLToPath(new URL('.', import.meta.resolve('@turnkit/core/package.json')));

/**
 * Milliseconds of `await import(specifier)`, one fresh Node process per sample. With `after`, that
 * module is imported first, off the clock (zod: any app that defines tools has loaded it already).
 */
export async function coldImport(specifier: string, samples: number, after?: string): Promise<number[]> {
  const preload = after ? `await import(${JSON.stringify(after)});` : '';
  const script = `${preload} const t0 = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t0));`;
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: CORE_DIR });
    times.push(Number(stdout));
  }
  return times;
}

/** Bundle size of the built core and what makes it up. */
export interface BundleSize {
  minBytes: number;
  gzipBytes: number;
  /** Minified bytes per source package (`@turnkit/core` itself, xstate, superjson…). */
  byPackage: Record<string, number>;
}

function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match ? match[1]! : '@turnkit/core';
}

/** Bundles `@turnkit/core`'s built ESM entry with esbuild: minified, zod external, then gzip -9. */
export async function bundleSize(): Promise<BundleSize> {
  const entry = fileURLToPath(import.meta.resolve('@turnkit/core'));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['zod'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0]!.contents;
  const byPackage: Record<string, number> = {};
  for (const meta of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(meta.inputs)) {
      const name = packageOf(path);
      byPackage[name] = (byPackage[name] ?? 0) + input.bytesInOutput;
    }
  }
  return { minBytes: output.byteLength, gzipBytes: gzipSync(output, { level: 9 }).byteLength, byPackage };
}

/** Import times (ms, per module) and the bundle. */
export interface Startup {
  coldImportMs: Record<string, { median: number; samples: number[] }>;
  bundle: BundleSize;
}

/** Cold imports of core (alone, and after zod) and of each dependency, then the bundle size. */
export async function measureStartup(): Promise<Startup> {
  const coldImportMs: Startup['coldImportMs'] = {};
  const imports: Array<[label: string, specifier: string, after?: string]> = [
    ['@turnkit/core', '@turnkit/core'],
    ['@turnkit/core after zod', '@turnkit/core', 'zod'],
    ['zod', 'zod'],
    ['xstate', 'xstate'],
    ['superjson', 'superjson'],
  ];
  for (const [label, specifier, after] of imports) {
    const samples = await coldImport(specifier, IMPORT_SAMPLES, after);
    coldImportMs[label] = { median: summarize(samples).medianMs, samples };
  }
  return { coldImportMs, bundle: await bundleSize() };
}
