import { defineConfig } from 'tsup';

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
  // The page: React, useChat and the cards in one browser bundle, served as /app.js.
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
  },
]);
