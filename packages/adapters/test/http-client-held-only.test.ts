/**
 * `createClientHeldHandler` (issue 27): `createHandler` without store mode, so a Workers bundle of
 * it holds none of core's sessions. Same routes and responses in client-held mode; a `store` is
 * refused.
 */
import { fileURLToPath } from 'node:url';
import { memoryStore, TurnkitError } from '@turnkit/core';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createClientHeldHandler, createHandler } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

const multiAnswer = { answers: { 'Cell lines': { selected: ['K562'], note: 'the young passage' } } };

/** The source files of core's and the adapters' builds a Workers-style bundle of `name({ agent, secret })` holds. */
async function bundledFiles(name: 'createHandler' | 'createClientHeldHandler'): Promise<string[]> {
  const result = await build({
    stdin: {
      contents: [
        "import { defineAgent } from '@turnkit/core';",
        `import { ${name} } from '../src/http/public.ts';`,
        "const agent = defineAgent({ name: 'lab', model: { async generate() { return { message: { role: 'assistant', content: 'ok' } }; } } });",
        `export default { fetch: ${name}({ agent, secret: '${SECRET}' }) };`,
      ].join('\n'),
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    metafile: true,
    external: ['zod', 'zod/*', 'xstate', 'hono', 'hono/*', 'superjson', '@noble/*'],
    // Core from its package (the ESM build a Worker bundles), not from the workspace's `paths`.
    tsconfigRaw: '{}',
  });
  return Object.keys(Object.values(result.metafile.outputs)[0]!.inputs);
}

describe('createClientHeldHandler', () => {
  it('refuses a store with CONFIG_INVALID naming createHandler', () => {
    const attempt = () =>
      createClientHeldHandler({ agent: inventoryAgent(), secret: SECRET, store: memoryStore() });
    expect(attempt).toThrow(TurnkitError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(attempt).toThrow(/use `createHandler`/i);
    expect(() =>
      createHandler({ agent: inventoryAgent(), secret: SECRET, store: memoryStore() }),
    ).not.toThrow();
  });

  it('refuses what only store mode reads, naming the option; createHandler keeps its own messages', () => {
    const agent = inventoryAgent();
    const storeOnly = [
      { sweepToken: 'a-sweep-token-of-16+' },
      { queue: { enqueue: async () => {} } as never },
      { leaseMs: 5000 },
      { onInteraction: () => {} },
    ];
    for (const option of storeOnly) {
      const [key] = Object.keys(option);
      expect(() => createClientHeldHandler({ agent, secret: SECRET, ...option })).toThrow(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringContaining(`\`${key}\` is for store mode`),
        }),
      );
    }
    expect(() => createHandler({ agent, secret: SECRET, sweepToken: 'a-sweep-token-of-16+' })).toThrow(
      /`sweepToken` needs a `store`/,
    );
  });

  it('checks its options as createHandler does', () => {
    expect(() => createClientHeldHandler({ agent: inventoryAgent(), secret: 'short' })).toThrow(
      /at least 32 characters/,
    );
  });

  it('plays a client-held run: start, answer, approve, with the snapshot in the bodies', async () => {
    const thawed: string[][] = [];
    const handler = createClientHeldHandler({ agent: inventoryAgent({ thawed }), secret: SECRET });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('needs_input');
    expect(started.body.snapshot).toMatch(/,"sig":"[0-9a-f]{64}"\}$/);
    expect(typeof started.body.eventsToken).toBe('string');
    const { runId, snapshot } = started.body;
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, { ...multiAnswer, snapshot });
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, {
      snapshot: answered.body.snapshot,
    });
    expect(approved.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
    // A store-mode route is not there.
    expect((await send(handler, 'GET', '/interactions')).status).toBe(404);
  });

  it("keeps core's sessions and the store-only routes out of a bundle, which createHandler's holds", async () => {
    const storeOnly = (files: string[]) =>
      files.filter(
        (file) =>
          /core\/dist\/esm\/sessions\//.test(file) ||
          /(^|\/)src\/http\/(backend|sweep|links|stop|inbox|fork|store-mode)\.ts$/.test(file),
      );
    const full = storeOnly(await bundledFiles('createHandler'));
    expect(full.filter((file) => file.includes('/sessions/'))).not.toEqual([]);
    expect(
      full
        .filter((file) => file.endsWith('.ts'))
        .map((file) => file.split('/').at(-1))
        .sort(),
    ).toEqual(['backend.ts', 'fork.ts', 'inbox.ts', 'links.ts', 'stop.ts', 'store-mode.ts', 'sweep.ts']);
    expect(storeOnly(await bundledFiles('createClientHeldHandler'))).toEqual([]);
  }, 60_000);
});
