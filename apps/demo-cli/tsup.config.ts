import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  // The demos' model choice is TypeScript source (its `exports`): bundled in.
  noExternal: ['@turnkit/demo-models'],
});
