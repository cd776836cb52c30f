import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tests run the built CLI (dist/cli.js) as a child process; it is built once here.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // Its files mostly wait (on servers, child processes, leases, a browser): vitest's default of
    // one worker per spare core (one, on two cores) runs them one after another; three overlap the
    // waiting. Measured on two cores with `npm run test:timings` (docs/architecture/repository.md).
    maxWorkers: 3,
    hookTimeout: 120_000,
  },
});
