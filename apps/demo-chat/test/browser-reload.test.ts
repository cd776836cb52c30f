/**
 * Stop is not disconnect (DESIGN §20, issue 31) on the useChat page in Chromium: reloading the page
 * while a turn plays (`count_vials`, a slow tool) closes its stream but never stops the turn: the
 * run completes in the store, the count ran once, and the reloaded page shows the answer.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, withChromium } from './chromium.js';
import { withChatServer } from './helpers.js';

const chat = withChatServer({ countMs: 1500 });
const openPage = withChromium();

/** The run behind the page's chat, from the handler's own route. */
async function runOf(
  page: Page,
  url: string,
): Promise<{ status: string; messages: { role: string; content: string | null }[] }> {
  const chatId = new URL(page.url()).searchParams.get('chat') ?? '';
  const response = await fetch(new URL(`/api/runs/${chatId}`, url));
  return (await response.json()) as { status: string; messages: { role: string; content: string | null }[] };
}

const logText = (page: Page) => page.locator('#log').textContent();

describe.skipIf(!available)('reloading the useChat page mid-turn in Chromium', () => {
  it('never stops the turn: it completes, and the reloaded page shows it', async () => {
    const page = await openPage(chat.server().url);
    await page.getByLabel('Message').fill('count the vials please');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => logText(page)).toContain('count_vials');
    await page.reload();

    await expect
      .poll(async () => (await runOf(page, chat.server().url)).status, { timeout: 10_000 })
      .toBe('completed');
    const run = await runOf(page, chat.server().url);
    expect(run.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    expect(run.messages.at(-1)?.content).toContain('Counted 10 vials');
    await page.reload();
    await expect.poll(() => logText(page)).toContain('Counted 10 vials');
  });
});
