/**
 * Builds the package once before the tests (tsup, its own config): the page's React bundle in
 * `dist/client/`, which the server serves as `/app.js`. `@turnkit/adapters` must be built already
 * (turbo's `test` task depends on `^build`): the bundle takes its client subpath from `dist/`.
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
