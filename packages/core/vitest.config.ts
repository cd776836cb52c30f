import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The property tests play hundreds of runs each: about a second alone, several on a busy
    // 2-core machine, where vitest's default 5 s limit failed one while nothing was wrong.
    testTimeout: 30_000,
  },
});
