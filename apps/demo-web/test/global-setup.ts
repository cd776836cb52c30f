/**
 * One Chromium for the whole run: started here, before any test file, and closed after the last.
 * Each file connects to it (`chromium.ts`) and opens fresh contexts, so no file pays a browser
 * start (about a second, several on a busy 2-core machine). Without Chromium nothing starts and
 * the browser suites skip (or fail under CI=true, in `chromium.ts`).
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The WebSocket endpoint of the run's Chromium, or '' when Chromium is not installed. */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM)) {
    project.provide('chromiumEndpoint', '');
    return async () => {};
  }
  const server = await chromium.launchServer({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
