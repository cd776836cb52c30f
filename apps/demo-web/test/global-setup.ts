/**
 * One Chromium for the whole run (`chromium-server.ts`): started before any test file and closed
 * after the last. Each file connects to it (`chromium.ts`) and opens fresh contexts, so no file pays
 * a browser start (about a second, several on a busy 2-core machine).
 */
import type { TestProject } from 'vitest/node';
import { launchRunChromium } from './chromium-server.js';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return launchRunChromium(project, 'demo-web');
}
