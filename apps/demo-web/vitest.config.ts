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
    // The browser test starts Chromium and plays a whole run through the page.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
