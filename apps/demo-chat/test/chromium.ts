/**
 * Headless Chromium (the Debian `chromium` package) driven by playwright-core, as the web demo's
 * browser tests have it: one browser per test file, pages in fresh contexts whose uncaught errors
 * and console errors fail the test. Without Chromium the tests are skipped with a notice, except
 * under CI=true, where they fail. Screenshots go to test-artifacts/ (git-ignored).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
/** Whether Chromium is there; the suites are `describe.skipIf(!available)`. */
export const available = existsSync(CHROMIUM);
if (!available) {
  const message = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`[demo-chat] skipping the browser tests. ${message}`);
}

/** Opens pages of a fresh browser context (its own storage, like another browser) at a URL. */
/** Opens `url` in a fresh context, in a window of `viewport` (default 900×1200). */
export type OpenPage = (url: string, viewport?: { width: number; height: number }) => Promise<Page>;

/** Starts Chromium before the file's tests and stops it after them; each test fails on a page error. */
export function withChromium(): OpenPage {
  let browser: Browser | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    browser = await chromium.launch({
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
    });
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  return async (url, viewport = { width: 900, height: 1200 }) => {
    const context = await browser!.newContext({
      viewport,
      ...(viewport.width < 600 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : {}),
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(url);
    return page;
  };
}
