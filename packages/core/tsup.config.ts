import { defineConfig } from 'tsup';

/**
 * Three builds (DESIGN §18, §19):
 * - For bundlers targeting Workers, Edge and browsers (the `workerd`, `worker`, `edge-light` and
 *   `browser` conditions of the exports map; not `module`, so a Node bundle and Node itself never
 *   load two copies of a package): ESM, one file per source module (`dist/esm/**`). A bundle keeps
 *   only the modules a program reaches (`sideEffects: false`), which a single bundled file would
 *   keep half of, and `@noble/*` stay imports, so core and the adapters share one copy of them in
 *   it.
 * - For Node, Bun and Deno running the package (`import` and `require`): one bundled file each, ESM
 *   and CommonJS, with the pure-JS crypto inside. One file imports about twice as fast as a hundred
 *   (bench/README.md); @noble/* are ESM only, and a CommonJS `require` of ESM needs Node
 *   22.12, while core promises every Node 22.
 * - The declarations (`.d.ts` for `import`, `.d.cts` for `require`).
 * Three entries: the user API (`.`), `./testing` and `./store` (the kit for writing a store). The
 * bundled build splits what entries share into chunks, CommonJS too (`splitting`, which tsup turns
 * on for ESM alone by default): a store built on `@turnkit/core/store` throws the `ConflictError`
 * class that sessions, loaded from `@turnkit/core`, test with `instanceof`, not a second copy of it.
 * Core imports no Node module (DESIGN §18, test/portability.test.ts). Should one ever slip in, it
 * keeps its `node:` prefix in dist (`removeNodeProtocol: false`), so bundlers for Workers and Edge
 * see it for what it is.
 */
const entry = { index: 'src/index.ts', testing: 'src/testing/index.ts', store: 'src/store.ts' };

export default defineConfig([
  {
    entry: ['src/**/*.ts'],
    outDir: 'dist/esm',
    format: ['esm'],
    bundle: false,
    clean: true,
    sourcemap: true,
    target: 'node20',
    removeNodeProtocol: false,
  },
  {
    entry,
    format: ['esm', 'cjs'],
    splitting: true,
    // dist/esm is the other build's: this one cleans everything else.
    clean: ['!esm/**'],
    sourcemap: true,
    target: 'node20',
    removeNodeProtocol: false,
    noExternal: [/^@noble\//],
  },
  {
    entry,
    format: ['esm', 'cjs'],
    dts: { only: true },
    target: 'node20',
  },
]);
