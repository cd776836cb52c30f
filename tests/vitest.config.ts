import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*.test.ts'],
    testTimeout: 60_000,
    // Its files mostly wait (on servers, child processes, leases, a browser): vitest's default of
    // one worker per spare core (one, on two cores) runs them one after another; three overlap the
    // waiting. Measured on two cores with `npm run test:timings` (docs/architecture/repository.md).
    maxWorkers: 3,
  },
});
