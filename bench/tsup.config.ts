import { defineConfig } from 'tsup';

// The harness runs compiled against the BUILT packages: every dependency stays an import.
export default defineConfig({
  entry: {
    bench: 'src/bench.ts',
    profile: 'src/profile.ts',
    'signed-cycle': 'src/signed-cycle.ts',
    'bundle-size': 'src/bundle-size.ts',
    'store-cycle': 'src/store-cycle-run.ts',
  },
  format: ['esm'],
  clean: true,
  target: 'node20',
});
