/**
 * Issue 32 in Chromium (see `chromium.ts`): an answered question in the transcript offers "Change
 * this answer", which forks the run just before that answer (`POST /runs/:id/fork`); the page
 * follows the new run, its question card asks again, a different answer goes on, and the source
 * run keeps its own answer.
 */
import { describe, expect, it } from 'vitest';
import { available, choice, send, useBrowser } from './chromium.js';

const { openPage } = useBrowser();

describe.skipIf(!available)('changing an answer, in Chromium', () => {
  it('forks the run before an answered question and takes a different answer there', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'Thaw vials for tomorrow');
    const card = page.locator('form.question-card');
    await card.waitFor();
    const interactionId = await card.getAttribute('data-id');
    await page.reload();
    const again = page.locator('form.question-card');
    await again.waitFor();
    await choice(again, 'lines', 'K562').check();
    await choice(again, 'medium', 'DMEM').check();
    await again.getByRole('button', { name: 'Submit answers' }).click();
    await page.locator('form.approval-card').waitFor();
    const sourceUrl = page.url();

    const answered = page.locator('.bubble.answer');
    expect(await answered.textContent()).toContain('Cell lines: K562');
    await answered.getByRole('button', { name: 'Change this answer' }).click();

    const asked = page.locator('form.question-card');
    await asked.waitFor();
    expect(await asked.getAttribute('data-id')).toBe(interactionId);
    await expect.poll(() => page.url()).not.toBe(sourceUrl);
    await expect.poll(() => page.locator('form.approval-card').count()).toBe(0);
    await choice(asked, 'lines', 'HeLa').check();
    await choice(asked, 'medium', 'DMEM').check();
    await asked.getByRole('button', { name: 'Submit answers' }).click();
    await page.locator('form.approval-card').waitFor();
    await expect.poll(() => page.locator('.bubble.answer').textContent()).toContain('Cell lines: HeLa');

    const source = await openPage(new URL(sourceUrl).search);
    await source.locator('form.approval-card').waitFor();
    expect(await source.locator('.bubble.answer').textContent()).toContain('Cell lines: K562');
  });
});
