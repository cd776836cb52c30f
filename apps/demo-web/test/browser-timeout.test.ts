/**
 * Issue 14 in Chromium (see `chromium.ts`): a question that times out. Its card counts down; at
 * zero it says so and takes no more input; the server's sweeper (`POST /api/sweep`, every second
 * here: the page, ticking every 250 ms, shows the timeout before a sweep can take the card away, even
 * on a busy machine) resolves it, the run goes on, and the page, which got no `state` event for that turn,
 * reads the run and shows the timeout and the assistant's reply.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, send, useBrowser } from './chromium.js';

const { openPage } = useBrowser({ questionTimeoutMs: 3000, sweepMs: 1000 });

describe.skipIf(!available)('a question that times out, in Chromium', () => {
  it('counts down on the card, then the sweep lets the run go on and the page shows it', async () => {
    const page = await openPage('/?lang=zh-CN');
    await send(page, '帮我解冻细胞');
    const card = page.locator('form.question-card');
    await card.waitFor();
    const countdown = card.locator('.countdown');
    expect(await countdown.textContent()).toMatch(/^剩余回答时间：0:0[123]$/);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'countdown-card.png') });

    await expect.poll(() => countdown.textContent(), { timeout: 10_000 }).toBe('提问超时，Agent 将继续执行');
    expect(await card.getByRole('button', { name: '提交回答' }).isDisabled()).toBe(true);

    await expect.poll(() => page.locator('form.card').count(), { timeout: 10_000 }).toBe(0);
    expect(await page.locator('#flash').textContent()).toBe('提问超时，Agent 将继续执行');
    await expect.poll(() => page.locator('#log').textContent()).toContain('好的，我没有解冻任何东西。');
    expect(await page.locator('#log').textContent()).toContain('提问超时：Agent 在没有回答的情况下继续执行');
    await page.screenshot({ path: join(ARTIFACTS, 'timed-out.png') });
  });
});
