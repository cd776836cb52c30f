import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    openai: 'src/openai.ts',
    file: 'src/file-store.ts',
    redis: 'src/redis-store.ts',
    postgres: 'src/postgres-store.ts',
    events: 'src/jsonl-event-log.ts',
    http: 'src/http/index.ts',
    'ai-sdk': 'src/ai-sdk/index.ts',
    'ai-sdk-client': 'src/ai-sdk/client.ts',
    'ag-ui': 'src/ag-ui/index.ts',
    mcp: 'src/mcp/index.ts',
    otel: 'src/otel/index.ts',
    queue: 'src/queue/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
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
