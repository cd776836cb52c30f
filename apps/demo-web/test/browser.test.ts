/**
 * The page in a real browser: headless Chromium (the Debian `chromium` package) driven by
 * playwright-core. Without Chromium the test is skipped with a notice, except under CI=true, where
 * it fails. Screenshots go to test-artifacts/.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../src/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const available = existsSync(CHROMIUM);
if (!available) {
  const message = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`[demo-web] skipping the browser test. ${message}`);
}

let browser: Browser;
let server: DemoServer;
let dir: string;

beforeAll(async () => {
  if (!available) return;
  dir = await mkdtemp(join(tmpdir(), 'turnkit-web-'));
  server = await startDemoServer({ port: 0, dataDir: join(dir, 'runs'), paceMs: 15, thinkMs: 50 });
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
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Uncaught errors and console errors of every page; each test ends by checking there were none. */
const pageErrors: string[] = [];

/** A page of a fresh browser context (its own storage, like another browser). */
async function openPage(path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 900, height: 1300 }, locale: 'en-US' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(new URL(path, server.url).toString());
  return page;
}

/** The checkbox or radio button of an option, found by its accessible name (label, then description). */
function choice(card: Locator, question: string, label: string): Locator {
  const name = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`);
  const fieldset = card.locator(`fieldset[data-question="${question}"]`);
  return fieldset.getByRole('checkbox', { name }).or(fieldset.getByRole('radio', { name }));
}

describe.skipIf(!available)('the web demo in Chromium', () => {
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  it('asks with a card, survives a reload, takes an approval and shows the transcript', async () => {
    const page = await openPage('/?lang=en');
    await expect.poll(() => page.locator('.empty').textContent()).toContain('thaw vials');
    await page.getByLabel('Message').fill('Thaw vials for tomorrow’s experiment');
    await page.getByRole('button', { name: 'Send' }).click();

    const card = page.locator('form.question-card');
    await card.waitFor();
    expect(page.url()).toMatch(/[?&]run=run_[A-Za-z0-9_-]{22}/);
    const runUrl = page.url();
    await expect
      .poll(() => card.locator('legend').allTextContents())
      .toEqual([
        'Cell linesWhich cell lines should I thaw (one vial each)?',
        'MediumWhich medium should the vials go into?',
      ]);
    const interactionId = await card.getAttribute('data-id');
    await choice(card, 'lines', 'K562').check();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'question-card.png') });

    await page.reload();
    const again = page.locator('form.question-card');
    await again.waitFor();
    expect(await again.getAttribute('data-id')).toBe(interactionId);
    expect(page.url()).toBe(runUrl);

    const lines = again.locator('fieldset[data-question="lines"]');
    await choice(again, 'lines', 'K562').check();
    await choice(again, 'lines', 'HEK293T').check();
    await lines.getByLabel('Your own answer for Cell lines').fill('MCF-7');
    expect(await lines.locator('input[data-other]').isChecked()).toBe(true);
    await lines.getByLabel('Note (optional)').fill('use the newest vials');
    await choice(again, 'medium', 'DMEM').check();
    await again.getByRole('button', { name: 'Submit answers' }).click();

    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    expect(await approval.locator('.tool-name').textContent()).toBe('thaw_vials');
    expect(JSON.parse(await approval.locator('textarea.json').inputValue())).toEqual({
      cellLines: ['K562', 'HEK293T', 'MCF-7'],
      medium: 'DMEM',
    });
    await approval.getByLabel('Rationale (optional)').fill('needed for the 9:00 assay');
    await approval.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'approval-card.png') });
    await approval.getByRole('button', { name: 'Approve' }).click();

    const final = page.locator('.bubble.assistant').last();
    await expect.poll(() => final.textContent(), { timeout: 15_000 }).toContain('Spin them down');
    await expect.poll(() => page.locator('form.card').count()).toBe(0);
    await expect.poll(() => page.locator('.bubble.live').count()).toBe(0);
    const transcript = ((await page.locator('#log').textContent()) ?? '').replace(/\s+/g, ' ');
    for (const expected of [
      'Thaw vials for tomorrow’s experiment',
      'Cell lines: K562, HEK293T, Other (custom: MCF-7) (note: use the newest vials)',
      'Medium: DMEM',
      'I thawed K562 (A3-12), HEK293T (B4-07) into DMEM.',
      'MCF-7: not in this freezer',
    ]) {
      expect(transcript).toContain(expected);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'demo-web.png') });

    const other = await openPage(`${new URL(runUrl).search.replace('lang=en', 'lang=zh-CN')}`);
    await expect.poll(() => other.locator('.bubble').count()).toBeGreaterThan(3);
    expect(await other.getByRole('button', { name: '发送' }).count()).toBe(1);
    expect(await other.locator('h1').textContent()).toBe('液氮罐库存助手');
    await other.screenshot({ path: join(ARTIFACTS, 'demo-web-zh.png') });
  });

  it('lets another browser answer the pending question, and the first one follows live', async () => {
    const first = await openPage('/');
    await first.getByLabel('Message').fill('Thaw one vial');
    await first.getByRole('button', { name: 'Send' }).click();
    await first.locator('form.question-card').waitFor();

    const second = await openPage(new URL(first.url()).search);
    const card = second.locator('form.question-card');
    await choice(card, 'lines', 'HeLa').check();
    await choice(card, 'medium', 'DMEM').check();
    await card.getByRole('button', { name: 'Submit answers' }).click();
    await second.locator('form.approval-card').waitFor();

    await first.locator('form.approval-card').waitFor();
    expect(await first.locator('form.question-card').count()).toBe(0);
    await first.locator('form.approval-card').getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => second.locator('#log').textContent())
      .toContain('Understood: nothing was thawed.');
  });
});
