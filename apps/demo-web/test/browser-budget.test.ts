/**
 * A run's budget in Chromium (see `chromium.ts`), at 1280×800 and 390×844, with a budget of three
 * model calls: the page shows the spend against the limit; the fourth call pauses on a `budget`
 * card ("This run has spent … Allow … more?"); Approve extends the budget and the turn goes on;
 * later, Stop on the card rejects it and the run ends `budget_exceeded` with a clear line.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, coveredActions, send, useBrowser, VIEWPORTS } from './chromium.js';

const { openPage, server } = useBrowser({ budget: { steps: 3 }, countMs: 50 });

async function statusOf(page: Page): Promise<string> {
  const runId = new URL(page.url()).searchParams.get('run');
  const response = await fetch(new URL(`/api/runs/${runId}`, server().url));
  return ((await response.json()) as { status: string }).status;
}

const logText = (page: Page) => page.locator('#log').textContent();
const budgetText = (page: Page) => page.locator('#budget').textContent();

describe.skipIf(!available)('a run budget in Chromium', () => {
  for (const [name, viewport] of [
    ['1280×800', VIEWPORTS.laptop],
    ['390×844', VIEWPORTS.phone],
  ] as const) {
    it(`shows spend and limit, asks before spending more, extends or stops (${name})`, async () => {
      const page = await openPage('/?lang=en', 'en-US', viewport);
      await send(page, 'thank you');
      await expect.poll(() => logText(page)).toContain('You are welcome!');
      await expect.poll(() => budgetText(page)).toBe('Budget: 1 / 3 steps');

      await send(page, 'thank you');
      await expect.poll(() => budgetText(page)).toBe('Budget: 2 / 3 steps');

      // The count is the third call; reporting it would be the fourth: the run asks first.
      await send(page, 'count the vials');
      const card = page.locator('form.budget-card');
      await card.waitFor();
      expect(await card.locator('.budget-ask').textContent()).toBe(
        'This run has spent 3 steps of 3 steps. Allow another 2 steps?',
      );
      expect(await coveredActions(card)).toEqual([]);
      await page.screenshot({ path: `test-artifacts/budget-${viewport.width}.png` });
      await card.getByRole('button', { name: 'Approve (+2 steps)' }).click();
      await expect.poll(() => logText(page)).toContain('Counted 10 vials');
      await expect.poll(() => budgetText(page)).toBe('Budget: 4 / 5 steps');
      expect(await statusOf(page)).toBe('completed');

      await send(page, 'thank you');
      await expect.poll(() => budgetText(page)).toBe('Budget: 5 / 5 steps');
      await send(page, 'thank you');
      await card.waitFor();
      await card.getByRole('button', { name: 'Stop' }).click();
      const end = page.locator('#log .turn-end');
      await expect
        .poll(() => end.textContent())
        .toBe('Budget exceeded: the run stopped after spending 5 / 5 steps. Send a message to ask for more.');
      expect(await page.locator('form.budget-card').count()).toBe(0);
      expect(await statusOf(page)).toBe('budget_exceeded');
    });
  }
});
