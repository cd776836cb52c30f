/**
 * What the browser tests share: headless Chromium (the Debian `chromium` package) driven by
 * playwright-core, a demo server of their own in a temporary folder, pages in fresh contexts whose
 * errors fail the test, and the locators the cards need. Without Chromium the tests are skipped
 * with a notice, except under CI=true, where they fail. Screenshots go to test-artifacts/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { type DemoOptions, type DemoServer, startDemoServer } from '../src/server.js';
import { available } from './chromium-server.js';

export { available } from './chromium-server.js';
export const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

/** A window size. */
export interface Viewport {
  width: number;
  height: number;
}

/**
 * The sizes the page is tested at: common laptop and desktop windows and a phone. The first is
 * every page's default; a card's buttons must be visible above the composer at each.
 */
export const VIEWPORTS = {
  laptop: { width: 1280, height: 800 },
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
} as const satisfies Record<string, Viewport>;

/** A browser and a demo server for one test file. */
export interface BrowserFixture {
  server(): DemoServer;
  /** Where the server keeps its runs (a file store). */
  dataDir(): string;
  /**
   * A page of a fresh browser context (its own storage, like another browser), at `path`, in a
   * window of `viewport` (default 1280×800).
   */
  openPage(path: string, locale?: string, viewport?: Viewport): Promise<Page>;
}

/**
 * Connects to the run's Chromium (started once by `global-setup.ts`) and starts a demo server (fast
 * pace, `options` on top) before the file's tests, disconnects and stops the server after them, and
 * fails each test that left an uncaught error or a console error on a page.
 */
export function useBrowser(options: DemoOptions = {}): BrowserFixture {
  let browser: Browser;
  let server: DemoServer;
  let dir: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    dir = await mkdtemp(join(tmpdir(), 'turnkit-web-'));
    server = await startDemoServer({
      port: 0,
      dataDir: join(dir, 'runs'),
      paceMs: 15,
      thinkMs: 50,
      ...options,
    });
    browser = await chromium.connect(inject('chromiumEndpoint'));
    await mkdir(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  return {
    server: () => server,
    dataDir: () => join(dir, 'runs'),
    async openPage(path, locale = 'en-US', viewport: Viewport = VIEWPORTS.laptop) {
      const context = await browser.newContext({
        viewport,
        locale,
        ...(viewport.width < 600 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : {}),
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
      await page.goto(new URL(path, server.url).toString());
      return page;
    },
  };
}

/** The checkbox or radio button of an option, found by its accessible name (label, then description). */
export function choice(card: Locator, question: string, label: string): Locator {
  const name = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`);
  const fieldset = card.locator(`fieldset[data-question="${question}"]`);
  return fieldset.getByRole('checkbox', { name }).or(fieldset.getByRole('radio', { name }));
}

/** Sends a message from the composer. */
export async function send(page: Page, text: string): Promise<void> {
  await page.locator('#message').fill(text);
  await page.locator('#composer button[type="submit"]').click();
}

/**
 * Whether every visible action button of `card` shows uncovered where the page put it (nothing is
 * scrolled by the test): inside the window, above the composer, and the topmost element at its
 * centre (`elementFromPoint`). Returns one line per button that is not, empty when all are.
 */
export function coveredActions(card: Locator): Promise<string[]> {
  return card.locator('.actions button').evaluateAll((buttons) => {
    const composerTop = document.querySelector('#composer')?.getBoundingClientRect().top ?? innerHeight;
    const problems: string[] = [];
    for (const button of buttons as HTMLElement[]) {
      const box = button.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      const hit = document.elementFromPoint(x, y);
      const name = button.textContent?.trim();
      if (box.top < 0 || box.bottom > composerTop || box.right > innerWidth || box.left < 0) {
        problems.push(
          `${name}: at ${Math.round(box.top)}–${Math.round(box.bottom)} px, composer at ${Math.round(composerTop)} px`,
        );
      } else if (!hit || !(hit === button || button.contains(hit))) {
        problems.push(
          `${name}: covered by ${hit ? hit.tagName.toLowerCase() + (hit.id ? `#${hit.id}` : '') : 'nothing'}`,
        );
      }
    }
    return problems;
  });
}
