import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`../../packages/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the packages' sources, so they need no build (exact matches only).
    alias: [
      { find: /^@turnkit\/core$/, replacement: source('core/src/index.ts') },
      {
        find: /^@turnkit\/adapters\/ai-sdk$/,
        replacement: source('adapters/src/protocols/ai-sdk-ui/index.ts'),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
  },
});
