import { defineConfig } from 'tsup';

export default defineConfig({
  // The dist file names are those of the exports map in package.json.
  entry: {
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
    otel: 'src/otel/index.ts',
    queue: 'src/queue/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The handler and its protocol mounts import no Node module (DESIGN §18). The Node-only files
  // (file store, stdio MCP) keep the `node:` prefix in dist, so bundlers for Workers and Edge see
  // their built-ins for what they are.
  removeNodeProtocol: false,
  // The pure-JS HMAC ships inside dist, as in core: @noble/* are ESM only, and a CommonJS `require`
  // of ESM needs Node 20.19 / 22.12, while the adapters promise every Node 20.
  noExternal: [/^@noble\//],
  // The optional peers and core stay imports, never bundled: the user's copy is the one used.
  external: [
    '@turnkit/core',
    'openai',
    'ioredis',
    'pg',
    'bullmq',
    /^@modelcontextprotocol\//,
    '@ai-sdk/provider',
    '@opentelemetry/api',
  ],
});
