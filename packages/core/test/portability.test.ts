/**
 * DESIGN §18: core, the HTTP handler and its protocol mounts (`@turnkit/adapters/http`, `/ai-sdk`,
 * `/ag-ui`, `/mcp`) run unchanged on Node, Bun, Deno, Workers and Vercel Edge. Their source reaches
 * for nothing Node-only — no `node:` import, no `Buffer`, no `require`, and `process` only in the
 * two helpers that look for it and survive its absence — and the environment is read only where it
 * can be (Deno without `--allow-env` throws on access).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUESTION_LIMITS, resolveQuestionLimits } from '../src/index.js';

const packages = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const source = join(packages, 'core/src');
/** The adapter folders that must run everywhere; stores, queues and event hubs may be Node-only. */
const ADAPTER_FOLDERS = ['adapters/src/http', 'adapters/src/protocols'];

/** The files allowed to mention `process`: each reads it inside a guard (absent or throwing: unset). */
const HOST_LOOKUPS = [
  'core/src/questions/limits.ts',
  'core/src/snapshot/native-crypto.ts',
  'adapters/src/protocols/mcp/connect.ts',
];

/** Files that use a Node-only global only behind a `typeof` check, with a fallback every runtime has. */
const GUARDED_GLOBALS = ['core/src/interpreter/started.ts'];

const FORBIDDEN: [string, RegExp][] = [
  ['a node: import', /(?:from\s*|import\s*\(\s*)['"]node:/],
  ['Buffer', /\bBuffer\b/],
  ['require(', /\brequire\s*\(/],
  ['process', /\bprocess\b/],
  ['a Node-only global', /\b(?:__dirname|__filename|setImmediate|global)\b(?!\w)/],
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** The code of a file without its comments (a `//` inside a string such as a URL is kept). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

/** Whether every `setImmediate` of the code is a `globalThis` lookup behind a `typeof` check. */
function guarded(text: string): boolean {
  return (
    /typeof globalThis\.setImmediate === 'function'/.test(text) &&
    !/(?<!globalThis\.)\bsetImmediate\b/.test(text)
  );
}

/** What a folder's TypeScript reaches for that is Node-only, as `path: what` lines. */
function nodeOnlyUses(folder: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(folder).filter((path) => path.endsWith('.ts'))) {
    const path = relative(packages, file);
    const text = code(readFileSync(file, 'utf8'));
    for (const [what, pattern] of FORBIDDEN) {
      if (what === 'process' && HOST_LOOKUPS.includes(path)) continue;
      if (what === 'a Node-only global' && GUARDED_GLOBALS.includes(path) && guarded(text)) continue;
      if (pattern.test(text)) found.push(`${path}: ${what}`);
    }
  }
  return found;
}

describe('portability of @turnkit/core (DESIGN §18)', () => {
  it('uses no node: import, Buffer, require or Node-only global, and process only in its guarded lookups', () => {
    expect(nodeOnlyUses(source)).toEqual([]);
  });

  it.each(ADAPTER_FOLDERS)('holds %s to the same rule (the handler and its protocol mounts)', (folder) => {
    expect(nodeOnlyUses(join(packages, folder))).toEqual([]);
  });

  it('treats an environment that throws on access (Deno without --allow-env) as unset', () => {
    const env = Object.getOwnPropertyDescriptor(process, 'env')!;
    const denied = new Proxy(
      {},
      {
        get(_target, key) {
          throw new Error(`NotCapable: Requires env access to "${String(key)}"`);
        },
      },
    );
    Object.defineProperty(process, 'env', { ...env, value: denied });
    try {
      expect(resolveQuestionLimits()).toEqual(DEFAULT_QUESTION_LIMITS);
    } finally {
      Object.defineProperty(process, 'env', env);
    }
  });
});
