/**
 * A long conversation in Chromium (see `chromium.ts`): once the transcript is over 64 Ki
 * characters, the handler's `state` events carry only `messageCount`. The page must keep the
 * transcript it shows, and read the run again when it has grown: a second browser following the
 * run, and a reload, still show the whole conversation.
 */
import { describe, expect, it } from 'vitest';
import { available, choice, send, useBrowser } from './chromium.js';

const { openPage } = useBrowser();

/** A first message long enough that the transcript alone is over 64 Ki characters of JSON. */
const LONG_MESSAGE = `Thaw vials for tomorrow. Protocol notes follow. ${'Keep the vials on dry ice until use. '.repeat(1900)}`;

describe.skipIf(!available)('a long conversation in Chromium', () => {
  it('keeps the transcript when state events come without it, and fetches it when it grew', async () => {
    expect(LONG_MESSAGE.length).toBeGreaterThan(64 * 1024);
    const first = await openPage('/?lang=en');
    await send(first, LONG_MESSAGE);
    const card = first.locator('form.question-card');
    await card.waitFor();
    await expect
      .poll(() => first.locator('#log').textContent())
      .toContain('Let me check the LN2 freezer first.');

    const second = await openPage(new URL(first.url()).search);
    await second.locator('form.question-card').waitFor();
    await expect.poll(() => second.locator('.bubble.user').count()).toBe(1);

    await choice(card, 'lines', 'K562').check();
    await choice(card, 'medium', 'DMEM').check();
    await card.getByRole('button', { name: 'Submit answers' }).click();
    await first.locator('form.approval-card').waitFor();

    // The second browser got the new state without its transcript, and read the run again.
    await second.locator('form.approval-card').waitFor();
    await expect.poll(() => second.locator('#log').textContent()).toContain('Cell lines: K562');
    expect(await second.locator('.empty').count()).toBe(0);
    expect(await second.locator('.bubble.user').first().textContent()).toContain('Protocol notes follow.');

    await first.locator('form.approval-card').getByRole('button', { name: 'Reject' }).click();
    for (const page of [first, second]) {
      await expect
        .poll(() => page.locator('#log').textContent())
        .toContain('Understood: nothing was thawed.');
      const text = (await page.locator('#log').textContent()) ?? '';
      expect(text).toContain('Protocol notes follow.');
      expect(text).toContain('Medium: DMEM');
    }

    await second.reload();
    await expect
      .poll(() => second.locator('#log').textContent())
      .toContain('Understood: nothing was thawed.');
    expect(await second.locator('.bubble.user').first().textContent()).toContain('Protocol notes follow.');
  });
});
