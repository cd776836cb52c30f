/**
 * The useChat page's Stop button and run budget in Chromium, at 1280×800 and 390×844. Stop: while
 * a turn plays (`count_vials`, a slow tool), Stop calls `POST /api/runs/:id/stop`; the count
 * finishes, its result is kept, the model is not called again, the run ends `aborted` with a
 * "Stopped" line, and a new message goes on. Budget: with three model calls allowed, the page
 * shows the spend against the limit; the fourth call pauses on a budget card; Approve extends it,
 * and later Stop on the card ends the run `budget_exceeded` with a clear line.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, withChromium } from './chromium.js';
import { withChatServer } from './helpers.js';

// Stop must land while the count runs: 4 s leaves room for a page that shows the tool late on a
// busy machine (at 1.5 s the turn sometimes ended before the click, and no Stop was there to test).
const stopping = withChatServer({ countMs: 4000 });
const budgeted = withChatServer({ budget: { steps: 3 }, countMs: 50 });
const openPage = withChromium();

const VIEWPORTS = [
  ['1280×800', { width: 1280, height: 800 }],
  ['390×844', { width: 390, height: 844 }],
] as const;

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The run behind the page's chat, from the handler's own route. */
async function runOf(
  page: Page,
  url: string,
): Promise<{ status: string; messages: { role: string; content: string }[] }> {
  const chatId = new URL(page.url()).searchParams.get('chat') ?? '';
  const response = await fetch(new URL(`/api/runs/${chatId}`, url));
  return (await response.json()) as { status: string; messages: { role: string; content: string }[] };
}

const logText = (page: Page) => page.locator('#log').textContent();

describe.skipIf(!available)('Stop and the budget on the useChat page in Chromium', () => {
  for (const [name, viewport] of VIEWPORTS) {
    it(`stops a turn whose tool is running, keeps its result, and goes on (${name})`, async () => {
      const page = await openPage(stopping.server().url, viewport);
      await send(page, 'thank you');
      await expect.poll(() => logText(page)).toContain('You are welcome!');
      // Stop shows only while a turn plays.
      const stop = page.getByRole('button', { name: 'Stop', exact: true });
      await expect.poll(() => stop.count()).toBe(0);

      await send(page, 'count the vials please');
      await expect.poll(() => logText(page)).toContain('count_vials');
      await stop.click();
      // The turn ends once the running count has finished (up to its 4 s), past the poll's default 1 s.
      await expect
        .poll(() => page.locator('.turn-end').textContent(), { timeout: 15_000 })
        .toMatch(/^Stopped: /);
      expect(await stop.count()).toBe(0);
      const run = await runOf(page, stopping.server().url);
      expect(run.status).toBe('aborted');
      expect(run.messages.at(-1)?.role).toBe('tool');
      expect(JSON.parse(run.messages.at(-1)?.content ?? '{}')).toMatchObject({ total: 10 });
      expect(await logText(page)).not.toContain('Counted 10 vials');
      await page.screenshot({ path: join(ARTIFACTS, `chat-stop-${viewport.width}.png`) });

      await send(page, 'thank you');
      await expect.poll(async () => (await runOf(page, stopping.server().url)).status).toBe('completed');
      await expect.poll(() => page.locator('.turn-end').count()).toBe(0);
    });

    it(`shows spend and limit, asks before spending more, extends or stops (${name})`, async () => {
      const page = await openPage(budgeted.server().url, viewport);
      const budget = page.locator('#budget');
      await send(page, 'thank you');
      await expect.poll(() => budget.textContent()).toBe('Budget: 1 / 3 steps');
      await send(page, 'thank you');
      await expect.poll(() => budget.textContent()).toBe('Budget: 2 / 3 steps');

      await send(page, 'count the vials');
      const card = page.locator('form.budget-card');
      await card.waitFor();
      expect(await card.locator('.budget-ask').textContent()).toBe(
        'This run has spent 3 steps of 3 steps. Allow another 2 steps?',
      );
      await page.screenshot({ path: join(ARTIFACTS, `chat-budget-${viewport.width}.png`) });
      await card.getByRole('button', { name: 'Approve (+2 steps)' }).click();
      await expect.poll(() => logText(page)).toContain('Counted 10 vials');
      await expect.poll(() => budget.textContent()).toBe('Budget: 4 / 5 steps');

      await send(page, 'thank you');
      await expect.poll(() => budget.textContent()).toBe('Budget: 5 / 5 steps');
      await send(page, 'thank you');
      await card.waitFor();
      await card.getByRole('button', { name: 'Stop' }).click();
      await expect
        .poll(() => page.locator('.turn-end').textContent())
        .toBe('Budget exceeded: the run stopped after spending 5 / 5 steps. Send a message to ask for more.');
      expect(await page.locator('form.budget-card').count()).toBe(0);
      expect((await runOf(page, budgeted.server().url)).status).toBe('budget_exceeded');
    });
  }
});
