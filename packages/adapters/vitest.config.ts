import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against core's source, so they need no build of @turnkit/core. Exact matches only:
    // a prefix alias of '@turnkit/core' would also rewrite '@turnkit/core/testing' and '/store'.
    alias: [
      {
        find: /^@turnkit\/core$/,
        replacement: fileURLToPath(new URL('../core/src/index.ts', import.meta.url)),
      },
      {
        find: /^@turnkit\/core\/testing$/,
        replacement: fileURLToPath(new URL('../core/src/testing/index.ts', import.meta.url)),
      },
      {
        find: /^@turnkit\/core\/store$/,
        replacement: fileURLToPath(new URL('../core/src/store.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The 5 MB snapshots and the cross-process race take a few seconds on a 2-core machine.
    testTimeout: 30_000,
    // Its files mostly wait (on servers, child processes, leases, a browser): vitest's default of
    // one worker per spare core (one, on two cores) runs them one after another; three overlap the
    // waiting. Measured on two cores with `npm run test:timings` (docs/architecture/repository.md).
    maxWorkers: 3,
    hookTimeout: 30_000,
  },
});
