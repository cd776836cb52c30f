/**
 * A hook's review in Chromium (DESIGN §26): with a policy that has every thaw reviewed, the thaw
 * waits on a review card — who asks, why, and the call's input under review, editable — before the
 * tool's own approval card. Approved with an edit, the thaw runs once with the reviewer's input and
 * the transcript keeps the decision; rejected, nothing is thawed and no approval card comes.
 */
import { toolPolicy } from '@turnkit/core';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, choice, coveredActions, send, useBrowser, VIEWPORTS } from './chromium.js';

const review = toolPolicy({
  name: 'thaw-review',
  ask: ['thaw_vials'],
  reason: 'Thaws are reviewed by the lab manager.',
});
const { openPage } = useBrowser({ hooks: [review], countMs: 50 });

/** Asks to thaw and answers the question: K562 into DMEM. */
async function askThaw(page: Page) {
  await send(page, 'Thaw vials for tomorrow');
  const card = page.locator('form.question-card');
  await card.waitFor();
  await choice(card, 'lines', 'K562').check();
  await choice(card, 'medium', 'DMEM').check();
  await card.getByRole('button', { name: 'Submit answers' }).click();
}

describe.skipIf(!available)('a review card in Chromium', () => {
  it('shows what is under review; approved with an edit it thaws that, rejected it thaws nothing', async () => {
    const page = await openPage('/?lang=en', 'en-US', VIEWPORTS.laptop);
    await askThaw(page);
    const card = page.locator('form.review-card');
    await card.waitFor();
    expect(await card.locator('.review-by').textContent()).toBe(
      'thaw-review asks you to review a tool call · thaw_vials',
    );
    expect(await card.locator('.reason').textContent()).toBe('Thaws are reviewed by the lab manager.');
    expect(JSON.parse(await card.locator('textarea.json').inputValue())).toEqual({
      cellLines: ['K562'],
      medium: 'DMEM',
    });
    expect(await coveredActions(card)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/review-card.png' });
    await card.locator('textarea.json').fill('{ "cellLines": ["K562"], "medium": "RPMI-1640" }');
    await card.getByRole('button', { name: 'Approve edited input' }).click();

    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect
      .poll(() => page.locator('.bubble.assistant').last().textContent(), { timeout: 15_000 })
      .toContain('I thawed K562 (A3-12) into RPMI-1640.');
    expect(await page.locator('#log').textContent()).toContain('✓ You approved the review of thaw_vials');

    await askThaw(page);
    await card.waitFor();
    await card.getByLabel('Rationale (optional)').fill('not before Monday');
    await card.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => page.locator('#log').textContent())
      .toContain('✕ You rejected the review of thaw_vials');
    expect(await page.locator('form.approval-card').count()).toBe(0);
  });
});
