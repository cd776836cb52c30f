/**
 * The one Chromium of a test run (the Debian `chromium` package, or `CHROMIUM_PATH`), shared by the
 * demos' browser tests (this app's and, through `@turnkit/demo-web/chromium-server`, the useChat
 * demo's): a vitest global setup launches it as a Playwright browser server and hands its endpoint
 * to the test files, which connect to it instead of each starting a browser of their own — on a
 * two-core machine a launch costs seconds per file. Nothing here imports `vitest` at run time: the
 * global setup runs outside the test workers.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Whether Chromium is there; the browser suites are `describe.skipIf(!available)`. */
export const available = existsSync(CHROMIUM);
/** Why the browser tests are skipped (or, under CI=true, fail) when Chromium is missing. */
export const MISSING = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`;

/** How the browser is launched: headless, no sandbox (containers), nothing that reaches the network. */
export const LAUNCH_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** The browser server's WebSocket endpoint (`''` without Chromium). */
    chromiumEndpoint: string;
  }
}

/**
 * Launches the run's Chromium and provides its endpoint as `chromiumEndpoint`; resolves with the
 * teardown that closes it. Without Chromium it provides `''` and warns (`label` says whose tests
 * skip), or throws under CI=true.
 */
export async function launchRunChromium(project: TestProject, label: string): Promise<() => Promise<void>> {
  if (!available) {
    if (process.env.CI === 'true') throw new Error(MISSING);
    console.warn(`[${label}] skipping the browser tests. ${MISSING}`);
    project.provide('chromiumEndpoint', '');
    return async () => {};
  }
  const browser = await chromium.launchServer(LAUNCH_OPTIONS);
  project.provide('chromiumEndpoint', browser.wsEndpoint());
  return () => browser.close();
}
