/**
 * The Stop button in Chromium (see `chromium.ts`), at 1280×800 and 390×844: while a turn plays
 * (here `count_vials`, a slow tool), Stop calls `POST /runs/:id/stop`; the tool finishes, its
 * result is kept, the model is not called again, the run ends `aborted` with a "Stopped" line, and
 * a new message goes on. Reloading the page mid-turn closes its event stream and its request, and
 * never stops the turn.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, send, useBrowser, VIEWPORTS } from './chromium.js';

// Stop must land while the count runs: 4 s leaves room for a page that shows the tool late on a
// busy machine (at 1.5 s the turn sometimes ended before the click, and no Stop was there to test).
const { openPage, server } = useBrowser({ countMs: 4000 });

/** The run the page shows, read from the API. */
async function runOf(page: Page): Promise<{ status: string; messages: { role: string; content: string }[] }> {
  const runId = new URL(page.url()).searchParams.get('run');
  const response = await fetch(new URL(`/api/runs/${runId}`, server().url));
  return (await response.json()) as { status: string; messages: { role: string; content: string }[] };
}

const logText = (page: Page) => page.locator('#log').textContent();

describe.skipIf(!available)('the Stop button in Chromium', () => {
  for (const [name, viewport] of [
    ['1280×800', VIEWPORTS.laptop],
    ['390×844', VIEWPORTS.phone],
  ] as const) {
    it(`stops a turn whose tool is running, keeps its result, and goes on (${name})`, async () => {
      const page = await openPage('/?lang=en', 'en-US', viewport);
      await send(page, 'thank you');
      await expect.poll(() => logText(page)).toContain('You are welcome!');
      const stop = page.locator('#stop');
      expect(await stop.isVisible()).toBe(false);

      await send(page, 'count the vials please');
      await expect.poll(() => logText(page)).toContain('Running count_vials');
      await stop.waitFor({ state: 'visible' });
      await stop.click();

      const stopped = page.locator('#log .turn-end');
      await expect.poll(() => stopped.textContent()).toMatch(/^Stopped: /);
      await stop.waitFor({ state: 'hidden' });
      // The count finished and its result is in the transcript; the model did not report it.
      const text = (await logText(page)) ?? '';
      expect(text).toContain('"total": 10');
      expect(text).not.toContain('Counted 10 vials');
      const run = await runOf(page);
      expect(run.status).toBe('aborted');
      expect(run.messages.at(-1)?.role).toBe('tool');
      expect(JSON.parse(run.messages.at(-1)?.content ?? '{}')).toMatchObject({ total: 10 });
      await page.screenshot({ path: `test-artifacts/stop-${viewport.width}.png` });

      // A new message continues the run: the line goes, the assistant answers.
      await send(page, 'thank you');
      await expect.poll(() => page.locator('#log .bubble.assistant').count()).toBeGreaterThanOrEqual(3);
      await expect.poll(() => page.locator('#log .turn-end').count()).toBe(0);
      expect((await runOf(page)).status).toBe('completed');
    });
  }

  it('does not stop the turn when the page reloads mid-turn: the turn completes', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'thank you');
    await expect.poll(() => logText(page)).toContain('You are welcome!');
    await send(page, 'count the vials please');
    await expect.poll(() => logText(page)).toContain('Running count_vials');
    await page.reload();
    await expect.poll(() => logText(page), { timeout: 10_000 }).toContain('Counted 10 vials');
    expect((await runOf(page)).status).toBe('completed');
    expect(await page.locator('#log .turn-end').count()).toBe(0);
  });
});
