/**
 * The core's folders are its layers (DESIGN §11): a file imports only from its own folder, from a
 * lower layer, or from the shared files, and another folder only through that folder's index.
 * Biome's `noImportCycles` catches circles; this catches imports that point upwards.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const source = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** Lower layers first; a file may import from its own rank or below. */
const RANK: Record<string, number> = {
  shared: 0,
  questions: 1,
  machine: 2,
  snapshot: 3,
  // Hooks (DESIGN §26): their shapes, chain and reviews; tools list them, the interpreter runs them.
  hooks: 3,
  tools: 4,
  handoffs: 4.5,
  interpreter: 5,
  sessions: 6,
  testing: 6,
  index: 7,
};

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** The package's entry files at the top of src/: the user API and the store kit (`@turnkit/core/store`). */
const ENTRIES = new Set(['index.ts', 'store.ts']);

/** `interpreter/loop.ts` → `interpreter`; `errors.ts` → `shared`; `index.ts`, `store.ts` → `index`. */
function layerOf(file: string): string {
  const path = relative(source, file);
  if (ENTRIES.has(path)) return 'index';
  return path.includes('/') ? path.split('/')[0]! : 'shared';
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((match) => match[1]!);
}

describe('the layers of @turnkit/core', () => {
  const files = sourceFiles(source).filter((file) => file.endsWith('.ts'));

  it('knows every folder', () => {
    for (const file of files) expect(RANK, relative(source, file)).toHaveProperty(layerOf(file));
  });

  it('imports nothing from a higher layer', () => {
    const upwards: string[] = [];
    for (const file of files) {
      for (const specifier of relativeImports(file)) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        if (RANK[layerOf(target)]! > RANK[layerOf(file)]!) {
          upwards.push(`${relative(source, file)} → ${relative(source, target)}`);
        }
      }
    }
    expect(upwards).toEqual([]);
  });

  it('reaches another folder only through its index', () => {
    const sideDoors: string[] = [];
    for (const file of files) {
      for (const specifier of relativeImports(file)) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        const other = layerOf(target);
        if (other === 'shared' || other === layerOf(file)) continue;
        if (!target.endsWith('/index.ts')) sideDoors.push(`${relative(source, file)} → ${specifier}`);
      }
    }
    expect(sideDoors).toEqual([]);
  });
});
