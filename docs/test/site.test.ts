/**
 * The built site in headless Chromium (the Debian `chromium` package, driven by playwright-core):
 * every built page is opened, and the test fails on a console error or an uncaught one, a request of
 * the site that fails, an image that does not load, a link inside the site to a page or file that
 * was not built, or an #anchor that the target page does not have. The local search must find
 * `answerQuestion`. Screenshots of the hand-written pages (and the API index) at desktop
 * (1280×800) and phone (390×844) widths go to docs/test-artifacts/ (git-ignored).
 *
 * The site must be built first (`npm run build` in docs/; turbo runs it before this test). Without
 * Chromium the test is skipped with a notice, except under CI=true, where it fails.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic } from './static-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = fileURLToPath(new URL('../.vitepress/dist/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Tabs open at once: enough to keep two cores busy while pages load (8 checked the site in 100 s
 * where 4 took 124 s, on two cores), few enough to stay well inside memory. */
const PARALLEL = 8;

const available = existsSync(CHROMIUM);
if (!available) {
  const message = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`[docs] skipping the browser test of the site. ${message}`);
}

/** What one page showed: its links (absolute), its element ids, and what went wrong on it. */
interface Visit {
  links: string[];
  ids: string[];
  problems: string[];
}

/** The built pages, relative to dist (`guides/nextjs.html`), without the 404 page. */
async function builtPages(): Promise<string[]> {
  const files = await readdir(DIST, { recursive: true });
  return files
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.html') && file !== '404.html')
    .sort();
}

/** Whether a page is hand-written (not under api/), or the API index: those get screenshots. */
function screenshotted(file: string): boolean {
  return !file.startsWith('api/') || file === 'api/index.html';
}

/** A tab the test reuses from page to page, and what went wrong on the page it shows now. */
interface Tab {
  page: Page;
  problems: string[];
  /**
   * The requests of the document shown now, made from its commit on; none while a load is under way
   * (`undefined`). A request the last page made or left running (a prefetch) is aborted by the next
   * load, which is no fault of the site.
   */
  requests: Set<Request> | undefined;
}

/**
 * Opens a tab in `context` whose errors (console errors, uncaught errors, failed requests and HTTP
 * errors of the site) go to the problems of the page it shows at the time.
 */
async function openTab(context: BrowserContext, origin: string): Promise<Tab> {
  const tab: Tab = { page: await context.newPage(), problems: [], requests: undefined };
  tab.page.on('request', (request) => tab.requests?.add(request));
  tab.page.on('framenavigated', (frame) => {
    if (frame === tab.page.mainFrame()) tab.requests = new Set();
  });
  tab.page.on('pageerror', (error) => tab.problems.push(`uncaught: ${error.message}`));
  tab.page.on('console', (message) => {
    // Chromium asks for /favicon.ico on its own; the site links no favicon.
    if (message.type() === 'error' && message.location().url !== `${origin}favicon.ico`) {
      tab.problems.push(`console error: ${message.text()}`);
    }
  });
  tab.page.on('requestfailed', (request) => {
    if (tab.requests?.has(request) && request.url().startsWith(origin))
      tab.problems.push(`request failed: ${request.url()}`);
  });
  tab.page.on('response', (response) => {
    const url = response.url();
    if (url.startsWith(origin) && url !== `${origin}favicon.ico` && response.status() >= 400) {
      tab.problems.push(`HTTP ${response.status()}: ${url}`);
    }
  });
  return tab;
}

/**
 * Runs `work` on every item in `PARALLEL` tabs of `context`, each tab going from page to page (a
 * full load each time: a tab of its own per page would start a renderer per page, most of this
 * test's time on two cores).
 */
async function eachInTabs<T>(
  context: BrowserContext,
  origin: string,
  items: T[],
  work: (tab: Tab, item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    const tab = await openTab(context, origin);
    try {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(tab, item);
    } finally {
      await tab.page.close();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

/** Loads `url` in `tab`, waits for the Vue app to mount, and reports what it found. */
async function visit(tab: Tab, url: string, screenshot?: string): Promise<Visit> {
  const problems: string[] = [];
  tab.problems = problems;
  tab.requests = undefined;
  const { page } = tab;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => '__vue_app__' in (document.querySelector('#app') ?? {}), undefined, {
    polling: 50,
  });
  const found = await page.evaluate(() => ({
    links: [...document.querySelectorAll('a[href]')].map((anchor) => (anchor as HTMLAnchorElement).href),
    ids: [...document.querySelectorAll('[id], a[name]')].map(
      (element) => element.id || element.getAttribute('name')!,
    ),
    brokenImages: [...document.images]
      .filter((image) => !image.complete || image.naturalWidth === 0)
      .map((image) => image.src),
  }));
  problems.push(...found.brokenImages.map((src) => `image not loaded: ${src}`));
  if (screenshot) {
    await mkdir(dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot });
  }
  return { links: found.links, ids: found.ids, problems };
}

/** The built file a link of the site names (`/guides/nextjs.html` → `guides/nextjs.html`), or undefined. */
function fileOf(pathname: string, built: Set<string>): string | undefined {
  const path = decodeURIComponent(pathname).replace(/^\//, '');
  for (const candidate of [path, `${path}index.html`, `${path}.html`]) {
    if (candidate === '' || candidate.endsWith('/')) continue;
    if (built.has(candidate) || existsSync(join(DIST, candidate))) return candidate;
  }
  return undefined;
}

describe.skipIf(!available)('the built documentation site', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof serveStatic>>;
  let pages: string[];

  beforeAll(async () => {
    if (!existsSync(join(DIST, 'index.html'))) {
      throw new Error(
        `The site is not built (${relative(process.cwd(), DIST)}): run \`npm run build\` in docs/ first.`,
      );
    }
    pages = await builtPages();
    server = await serveStatic(DIST);
    browser = await chromium.launch({
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
    await rm(ARTIFACTS, { recursive: true, force: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('opens every built page without an error, and every link and #anchor inside the site resolves', async () => {
    expect(pages).toContain('index.html');
    expect(pages).toContain('api/index.html');
    const context = await browser.newContext({ viewport: DESKTOP });
    const visits = new Map<string, Visit>();
    try {
      await eachInTabs(context, server.url, pages, async (tab, file) => {
        const shot = screenshotted(file)
          ? join(ARTIFACTS, 'desktop', file.replace(/\.html$/, '.png'))
          : undefined;
        visits.set(file, await visit(tab, server.url + file, shot));
      });
    } finally {
      await context.close();
    }

    const built = new Set(pages);
    const problems: string[] = [];
    for (const [file, { links, problems: own }] of visits) {
      problems.push(...own.map((problem) => `${file}: ${problem}`));
      for (const link of new Set(links)) {
        if (!link.startsWith(server.url)) continue;
        const { pathname, hash } = new URL(link);
        const target = fileOf(pathname, built);
        if (!target) {
          problems.push(`${file}: broken link ${pathname}`);
          continue;
        }
        const anchor = decodeURIComponent(hash.slice(1));
        const ids = visits.get(target)?.ids;
        if (anchor && ids && !ids.includes(anchor)) problems.push(`${file}: no #${anchor} on ${target}`);
      }
    }
    expect(problems).toEqual([]);
  }, 600_000);

  it('lays the hand-written pages out at a phone width without an error', async () => {
    const context = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const problems: string[] = [];
    try {
      await eachInTabs(context, server.url, pages.filter(screenshotted), async (tab, file) => {
        const shot = join(ARTIFACTS, 'phone', file.replace(/\.html$/, '.png'));
        const { problems: own } = await visit(tab, server.url + file, shot);
        problems.push(...own.map((problem) => `${file}: ${problem}`));
      });
    } finally {
      await context.close();
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('finds answerQuestion with the local search, and its result opens a built page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const page = await context.newPage();
      await page.goto(server.url, { waitUntil: 'load' });
      await page.waitForFunction(() => '__vue_app__' in (document.querySelector('#app') ?? {}), undefined, {
        polling: 50,
      });
      await page.locator('.VPNavBarSearch button.DocSearch-Button').click();
      await page.locator('#localsearch-input').fill('answerQuestion');
      const result = page
        .locator('.VPLocalSearchBox ul.results a.result', { hasText: 'answerQuestion' })
        .first();
      await result.waitFor({ timeout: 30_000 });
      const href = await result.evaluate((anchor) => (anchor as HTMLAnchorElement).href);
      expect(fileOf(new URL(href).pathname, new Set(pages))).toBeDefined();
      await mkdir(join(ARTIFACTS, 'desktop'), { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'desktop', 'search-answerQuestion.png') });
    } finally {
      await context.close();
    }
  }, 60_000);
});
