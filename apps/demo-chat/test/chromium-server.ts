/**
 * The one Chromium of a test run (the Debian `chromium` package, or `CHROMIUM_PATH`): the global
 * setup launches it as a Playwright browser server and hands its endpoint to the test files, which
 * connect to it (`chromium.ts`) instead of each starting a browser of their own — on a two-core
 * machine a launch costs seconds per file. Nothing here imports `vitest`: the global setup runs
 * outside the test workers.
 */
import { existsSync } from 'node:fs';

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
