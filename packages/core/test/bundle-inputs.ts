/**
 * What a browser-platform esbuild bundle of a few lines importing core's source holds: the files
 * (and packages) that put code into it. Tests of tree-shaking ask it which parts a program pays for.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const source = join(dirname(fileURLToPath(import.meta.url)), '../src');

/** Each input of the bundle of `entry` (resolved from core's `src`) with the bytes it put in. */
export async function bundleInputs(entry: string, external: string[] = []): Promise<[string, number][]> {
  const result = await build({
    stdin: { contents: entry, resolveDir: source, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external,
  });
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs);
  return inputs.map(([file, input]) => [file, input.bytesInOutput]);
}
