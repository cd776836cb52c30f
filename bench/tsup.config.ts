import { defineConfig } from 'tsup';

// The harness runs compiled against the BUILT packages: every dependency stays an import.
export default defineConfig({
  entry: {
    bench: 'src/bench.ts',
    profile: 'src/profile.ts',
    'signed-cycle': 'src/signed-cycle.ts',
    'bundle-size': 'src/bundle-size.ts',
    'store-cycle': 'src/store-cycle-run.ts',
    'ai-sdk': 'src/ai-sdk-run.ts',
    replay: 'src/replay-run.ts',
  },
  // AI SDK 7 is a devDependency (tsup would bundle it): it stays an import too.
  external: ['ai-7'],
  format: ['esm'],
  clean: true,
  target: 'node20',
});
