/**
 * Builds the CLI once before the tests: the end-to-end tests run `node dist/cli.js` exactly as
 * users do (bin, banner, bundling), not the sources through a loader. `@turnkit/core` and
 * `@turnkit/adapters` must be built already (turbo's `test` task depends on `^build`).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const packageDir = fileURLToPath(new URL('..', import.meta.url));
  const tsupCli = join(
    dirname(createRequire(import.meta.url).resolve('tsup/package.json')),
    'dist',
    'cli-default.js',
  );
  execFileSync(process.execPath, [tsupCli, '--silent'], {
    cwd: packageDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
