import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Core imports no Node module (DESIGN §18, test/portability.test.ts). Should one ever slip in, it
  // keeps its `node:` prefix in dist, so bundlers for Workers and Edge see it for what it is.
  removeNodeProtocol: false,
  // The pure-JS crypto ships inside dist: @noble/* are ESM only, and a CommonJS `require` of ESM
  // needs Node 20.19 / 22.12, while core promises every Node 20.
  noExternal: [/^@noble\//],
});
