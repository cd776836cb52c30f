/**
 * Headless Chromium driven by playwright-core, as the web demo's browser tests have it, except that
 * the browser is the test run's one (launched by the global setup, with the web demo's `chromium-server.ts`): each file
 * connects to it, and each test's pages open in fresh contexts (their own storage, like another
 * browser), closed after the test, whose uncaught errors and console errors fail it. Without
 * Chromium the tests are skipped with a notice, except under CI=true, where they fail. Screenshots
 * go to test-artifacts/ (git-ignored).
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { available } from '@turnkit/demo-web/chromium-server';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';

export { available } from '@turnkit/demo-web/chromium-server';
export const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

/** Opens `url` in a fresh context, in a window of `viewport` (default 900×1200). */
export type OpenPage = (url: string, viewport?: { width: number; height: number }) => Promise<Page>;

/** Connects to the run's Chromium before the file's tests; each test fails on a page error. */
export function withChromium(): OpenPage {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    browser = await chromium.connect(inject('chromiumEndpoint'));
    await mkdir(ARTIFACTS, { recursive: true });
  });
  // Disconnects only: the browser is the run's, closed by the global setup's teardown.
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const errors = pageErrors.splice(0);
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    // What the pages report while they are closed (an aborted fetch) is not the test's doing.
    pageErrors.length = 0;
    expect(errors).toEqual([]);
  });

  return async (url, viewport = { width: 900, height: 1200 }) => {
    const context = await browser!.newContext({
      viewport,
      ...(viewport.width < 600 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : {}),
    });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(url);
    return page;
  };
}
