import { defineConfig } from 'tsup';
import { aiSdkMajor } from './build/ai-sdk-major.js';

export default defineConfig([
  // The server: `node dist/main.js`. The web demo's agent is TypeScript source (its `exports`), so it
  // is bundled in; everything else stays an import of node_modules.
  {
    entry: { main: 'src/main.ts' },
    format: ['esm'],
    clean: ['*.js', '*.js.map'],
    sourcemap: true,
    target: 'node20',
    noExternal: ['@turnkit/demo-web'],
  },
  // The page: React, useChat and the cards in one browser bundle, served as /app.js, on AI SDK 7
  // with one copy of `ai` (the tests build it on AI SDK 6 as well: build/ai-sdk-major.ts).
  {
    entry: { app: 'src/client/main.tsx' },
    outDir: 'dist/client',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    clean: true,
    sourcemap: true,
    minify: true,
    noExternal: [/.*/],
    env: { NODE_ENV: 'production' },
    esbuildPlugins: [aiSdkMajor(7)],
  },
]);
