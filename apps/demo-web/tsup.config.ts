import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The demos' model choice is TypeScript source (its `exports`): bundled in.
  noExternal: ['@turnkit/demo-models'],
});
