/**
 * Once per test run, before the tests: builds the package (tsup, its own config: the page's React
 * bundle on AI SDK 7 in `dist/client/`, which the server serves as `/app.js`) and the same page on
 * AI SDK 6 (`dist/client-ai-sdk-6/`), and launches the run's one Chromium, whose endpoint the
 * browser tests `inject` (closed in the teardown). `@turnkit/adapters` must be built already
 * (turbo's `test` task depends on `^build`): the bundles take its client subpath from `dist/`.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchRunChromium } from '@turnkit/demo-web/chromium-server';
import type { TestProject } from 'vitest/node';
import { buildPage } from '../build/ai-sdk-major.js';
import { AI_SDK_6_BUNDLE_DIR } from './pages.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  await buildPage(6, AI_SDK_6_BUNDLE_DIR);

  return launchRunChromium(project, 'demo-chat');
}
