import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`../../packages/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the packages' sources, so they need no build. Exact matches only: a prefix
    // alias of '@turnkit/core' would also rewrite '@turnkit/core/testing'.
    alias: [
      { find: /^@turnkit\/core$/, replacement: source('core/src/index.ts') },
      { find: /^@turnkit\/core\/testing$/, replacement: source('core/src/testing/index.ts') },
      { find: /^@turnkit\/core\/store$/, replacement: source('core/src/store.ts') },
      { find: /^@turnkit\/adapters\/file$/, replacement: source('adapters/src/stores/file-store.ts') },
      { find: /^@turnkit\/adapters\/http$/, replacement: source('adapters/src/http/public.ts') },
      {
        find: /^@turnkit\/adapters\/ai-sdk$/,
        replacement: source('adapters/src/protocols/ai-sdk-ui/index.ts'),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One Chromium for the run, which every browser test file connects to.
    globalSetup: ['test/global-setup.ts'],
    // The browser tests play whole runs through the page.
    testTimeout: 60_000,
    // Its files mostly wait (on servers, child processes, leases, a browser): vitest's default of
    // one worker per spare core (one, on two cores) runs them one after another; three overlap the
    // waiting. Measured on two cores with `npm run test:timings` (docs/architecture/repository.md).
    maxWorkers: 3,
    hookTimeout: 60_000,
    // A poll waits for what the page shows; on a busy 2-core machine (other suites beside this one)
    // the page can take longer than vitest's default second to show it.
    expect: { poll: { timeout: 10_000 } },
  },
});
