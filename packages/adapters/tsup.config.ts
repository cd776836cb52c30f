import { defineConfig } from 'tsup';

/** The entry points, by the dist names of the exports map in package.json (test/exports.test.ts reads them). */
export const entry = {
  index: 'src/index.ts',
  openai: 'src/models/openai/index.ts',
  file: 'src/stores/file-store.ts',
  redis: 'src/stores/redis-store.ts',
  postgres: 'src/stores/postgres-store.ts',
  events: 'src/events/jsonl-event-log.ts',
  http: 'src/http/public.ts',
  'ai-sdk': 'src/protocols/ai-sdk-ui/index.ts',
  'ai-sdk-client': 'src/protocols/ai-sdk-ui/client.ts',
  'ag-ui': 'src/protocols/ag-ui/index.ts',
  mcp: 'src/protocols/mcp/index.ts',
  a2a: 'src/protocols/a2a/index.ts',
  otel: 'src/otel/index.ts',
  queue: 'src/queue/index.ts',
};

/**
 * Three builds, as in core (DESIGN §18, §19):
 * - For bundlers targeting Workers, Edge and browsers (the `workerd`, `worker`, `edge-light` and
 *   `browser` conditions of the exports map; not `module`, so a Node bundle and Node itself never
 *   load two copies of a package): ESM, one file per source module (`dist/esm/**`, each subpath at
 *   its module). A bundle keeps only the modules a program reaches (`sideEffects: false`), and
 *   `@noble/hashes` stays an import, shared with core in it.
 * - For Node, Bun and Deno running the package (`import` and `require`): one bundled file per
 *   subpath, ESM and CommonJS, with the pure-JS HMAC inside (@noble/* are ESM only, and a CommonJS
 *   `require` of ESM needs Node 22.12, while the adapters promise every Node 22).
 * - The declarations.
 * The handler and its protocol mounts import no Node module (DESIGN §18). The Node-only files (file
 * store, stdio MCP) keep the `node:` prefix in dist (`removeNodeProtocol: false`), so bundlers for
 * Workers and Edge see their built-ins for what they are. The optional peers and core stay imports,
 * never bundled: the user's copy is the one used.
 */
const external = [
  '@turnkit/core',
  'openai',
  'ioredis',
  'pg',
  'bullmq',
  /^@modelcontextprotocol\//,
  /^@a2a-js\//,
  '@ai-sdk/provider',
  '@opentelemetry/api',
];

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
    // dist/esm is the other build's: this one cleans everything else.
    clean: ['!esm/**'],
    sourcemap: true,
    target: 'node20',
    removeNodeProtocol: false,
    noExternal: [/^@noble\//],
    external,
  },
  {
    entry,
    format: ['esm', 'cjs'],
    dts: { only: true },
    target: 'node20',
    external,
  },
]);
