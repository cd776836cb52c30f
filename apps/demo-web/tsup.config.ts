import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
});
