/**
 * The adapters' folders are layers (DESIGN §24), lowest first:
 *
 *   stores/     file, Redis, Postgres snapshot stores; the run-id rule every layer shares
 *   models/     OpenAI and AI SDK model adapters, their shared error advice
 *   otel/       otelTelemetry (imports no other folder)
 *   events/     event hubs (in-process, Redis, Postgres), what a handler publishes, the JSONL log,
 *               the count checks of options
 *   queue/      TurnQueue, BullMQ, the memory queue, createWorker (publishes through events/)
 *   http/       createHandler, its routes, SSE, auth, client-held mode, the ProtocolMount interface
 *   protocols/  ai-sdk-ui (useChat), ag-ui, mcp, a2a: each mounts itself on http/, which imports none
 *   index.ts    the root entry
 *
 * A file imports only from its own folder or a lower one, and another folder only through an
 * `index.ts` of it — a door that holds only what the layers above need, so that the handler never
 * bundles a store or a shared hub. The root index, like the other public entries of
 * tsup.config.ts, may name the public entry files it gathers (the stores, the JSONL log). Biome's `noImportCycles` catches circles; this catches imports that point
 * upwards or through a side door. `http/` may not import a protocol, so a handler that mounts
 * none bundles none (DESIGN §18).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entry } from '../tsup.config.js';

const source = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** The public entry files (tsup's entries), which the root index may import directly. */
const ENTRY_FILES = new Set(
  Object.values(entry as Record<string, string>).map((path) => resolve(source, '..', path)),
);

/** Lower layers first; a file may import from its own rank or below. */
const RANK: Record<string, number> = {
  stores: 0,
  models: 1,
  otel: 1,
  events: 2,
  queue: 3,
  http: 4,
  protocols: 5,
  index: 6,
};

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** `http/routes.ts` → `http`; `index.ts` → `index`; a loose file → its own name (unknown). */
function layerOf(file: string): string {
  const path = relative(source, file);
  if (path === 'index.ts') return 'index';
  return path.split('/')[0]!;
}

/** `protocols/ag-ui/route.ts` → `protocols/ag-ui`: the folder a side door is judged by. */
function folderOf(file: string): string {
  return dirname(relative(source, file));
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from |import\()'(\.[^']+)'/g)].map((match) => match[1]!);
}

const files = sourceFiles(source).filter((file) => file.endsWith('.ts'));
const edges = files.flatMap((file) =>
  relativeImports(file).map((specifier) => ({
    file,
    specifier,
    target: resolve(dirname(file), specifier).replace(/\.js$/, '.ts'),
  })),
);

describe('the layers of @turnkit/adapters', () => {
  it('has no loose file beside the folders but the root index', () => {
    const loose = files
      .filter((file) => !relative(source, file).includes('/'))
      .map((f) => relative(source, f));
    expect(loose).toEqual(['index.ts']);
  });

  it('knows every folder', () => {
    for (const file of files) expect(RANK, relative(source, file)).toHaveProperty(layerOf(file));
  });

  it('imports nothing from a higher layer', () => {
    const upwards = edges
      .filter(({ file, target }) => RANK[layerOf(target)]! > RANK[layerOf(file)]!)
      .map(({ file, target }) => `${relative(source, file)} → ${relative(source, target)}`);
    expect(upwards).toEqual([]);
  });

  it('reaches another folder only through its index', () => {
    const sideDoors = edges
      .filter(({ file, target }) => {
        const own = folderOf(file);
        const other = folderOf(target);
        if (other === own || other.startsWith(`${own}/`) || own.startsWith(`${other}/`)) return false;
        // Siblings in one layer (models/openai → models/model-error-text.ts) share it freely.
        if (layerOf(target) === layerOf(file) && layerOf(file) !== 'protocols') return false;
        if (layerOf(file) === 'index' && ENTRY_FILES.has(target)) return false;
        return !target.endsWith('/index.ts');
      })
      .map(({ file, specifier }) => `${relative(source, file)} → ${specifier}`);
    expect(sideDoors).toEqual([]);
  });

  it('keeps the protocols apart: http imports none, and none imports another', () => {
    const crossings = edges
      .filter(({ file, target }) => {
        if (layerOf(target) !== 'protocols') return false;
        return layerOf(file) !== 'protocols' || folderOf(file) !== folderOf(target);
      })
      .map(({ file, specifier }) => `${relative(source, file)} → ${specifier}`);
    expect(crossings).toEqual([]);
  });
});
