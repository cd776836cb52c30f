/**
 * The useChat page in Chromium: the LN2 story answered through its cards — a question, an approval
 * and the box form `thaw_vials` asks mid-execution — with reloads while the run waits (the chat id
 * in the URL brings the same run back), `thaw_vials` running its `execute` once and its `resume`
 * once; and the storage sub-agent's free-text question and rejected approval. Each on the page
 * built against AI SDK 7 and against AI SDK 6: both majors' `useChat` read the same stream.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, withChromium } from './chromium.js';
import { withChatServer } from './helpers.js';
import { MAJOR_PAGES } from './pages.js';

const openPage = withChromium();

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The chat id the page keeps in its URL. */
const chatIdOf = (page: Page) => new URL(page.url()).searchParams.get('chat') ?? '';

describe.skipIf(!available).each(MAJOR_PAGES)(
  'the useChat demo in Chromium on $name',
  ({ files, suffix, aiVersion }) => {
    const { server, toolSteps } = withChatServer(async () => ({ page: files() }));
    const shot = (name: string) => join(ARTIFACTS, `${name}${suffix}.png`);

    it(`is the page bundled with one copy of ai ${aiVersion}`, async () => {
      const bundle = await (await fetch(new URL('/app.js', server().url))).text();
      expect(bundle.split(`"${aiVersion}"`)).toHaveLength(2);
    });

    it('answers a question, an approval and a form as cards, across reloads; thaw_vials runs once', async () => {
      const page = await openPage(server().url);
      await expect.poll(() => page.locator('.empty').textContent()).toContain('Thaw vials for tomorrow');
      await send(page, 'Thaw vials for tomorrow');

      const question = page.locator('form.question-card');
      await question.waitFor();
      const chatId = chatIdOf(page);
      expect(chatId).toMatch(/^chat_[0-9a-f]{32}$/);
      expect(await question.locator('legend').allTextContents()).toEqual([
        'Cell lines Which cell lines should I thaw (one vial each)?',
        'Medium Which medium should the vials go into?',
      ]);
      await question.getByRole('checkbox', { name: /^K562/ }).check();
      await page.screenshot({ path: shot('question-card') });

      // A reload mid-question: the page reads the chat back and shows the same card.
      await page.reload();
      await question.waitFor();
      expect(chatIdOf(page)).toBe(chatId);
      expect(await page.locator('.bubble.user').textContent()).toBe('Thaw vials for tomorrow');
      await question.getByRole('checkbox', { name: /^K562/ }).check();
      await question.getByRole('checkbox', { name: /^HeLa/ }).check();
      await question.getByRole('radio', { name: /^DMEM/ }).check();
      await question.getByRole('button', { name: 'Send answers' }).click();

      const approval = page.locator('form.approval-card');
      await approval.waitFor();
      expect(await approval.locator('.tool-name').textContent()).toBe('thaw_vials');
      // The tool's reason for the approval; the top agent's card names no one.
      await expect
        .poll(() => approval.locator('.reason').textContent())
        .toBe('Thawing 2 vial(s) cannot be undone: they must be used today.');
      expect(await approval.locator('.asker').count()).toBe(0);
      // The answers are shown under their questions' headers, before any reload too.
      expect(await page.locator('.tool.done', { hasText: 'Answered' }).textContent()).toBe(
        '✓ Answered: Cell lines: K562, HeLa · Medium: DMEM',
      );
      expect(JSON.parse((await approval.locator('pre.json').textContent()) ?? '')).toEqual({
        cellLines: ['K562', 'HeLa'],
        medium: 'DMEM',
      });
      await page.screenshot({ path: shot('approval-card') });
      expect(await toolSteps(chatId)).toEqual([]);

      await page.reload();
      await approval.waitFor();
      expect(await page.locator('.tool.done', { hasText: 'Answered' }).textContent()).toBe(
        '✓ Answered: Cell lines: K562, HeLa · Medium: DMEM',
      );
      await approval.getByRole('button', { name: 'Approve' }).click();

      // HeLa is in two boxes: thaw_vials itself asks which one (ctx.ask), drawn from its JSON Schema.
      const form = page.locator('form.form-card');
      await form.waitFor();
      expect(await form.locator('.title').textContent()).toBe(
        'Some of these lines are in more than one box. Which box should each vial come from?',
      );
      expect(await toolSteps(chatId)).toEqual(['thaw_vials.execute']);
      await form.getByRole('radio', { name: 'D2' }).check();
      await page.screenshot({ path: shot('form-card') });

      await page.reload();
      await form.waitFor();
      await form.getByRole('radio', { name: 'D2' }).check();
      await form.getByRole('button', { name: 'Send', exact: true }).click();

      const reply = page.locator('.bubble.assistant').last();
      await expect
        .poll(() => reply.textContent(), { timeout: 15_000 })
        .toContain('I thawed K562 (A3-12), HeLa (D2-11) into DMEM.');
      await expect.poll(() => page.locator('form.card').count()).toBe(0);
      await expect.poll(() => page.locator('.thinking').count()).toBe(0);
      expect(await toolSteps(chatId)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
      // The final answer is the agent's typed thaw plan, drawn as a table, not as its JSON.
      expect(
        await reply
          .locator('table.plan-table tr')
          .evaluateAll((rows) =>
            rows.map((row) => Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent)),
          ),
      ).toEqual([
        ['Cell line', 'Box', 'Positions', 'Vials left'],
        ['K562', 'A3', 'A3-12', '2'],
        ['HeLa', 'D2', 'D2-11', '3'],
      ]);
      expect(await reply.locator('.plan-fact').allTextContents()).toEqual(['Medium: DMEM']);
      expect(await page.locator('#log').textContent()).not.toContain('{"summary"');
      await page.screenshot({ path: shot('demo-chat'), fullPage: true });

      // The finished chat reads back the same after one more reload.
      await page.reload();
      await expect
        .poll(() => reply.textContent())
        .toContain('I thawed K562 (A3-12), HeLa (D2-11) into DMEM.');
      expect(await toolSteps(chatId)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
    });

    it('shows the storage sub-agent’s free-text question and approval; a rejection stores nothing', async () => {
      const page = await openPage(server().url);
      await send(page, 'Store 2 new vials of HeLa');
      const question = page.locator('form.question-card');
      await question.waitFor();
      expect(await question.locator('legend').textContent()).toBe(
        'Position Where should the new HeLa vials go? One position per vial, e.g. B2-14, B2-15.',
      );
      // A free-text question: one text field, no options; an empty answer is refused on the page.
      expect(await question.getByRole('radio').count()).toBe(0);
      await question.getByRole('button', { name: 'Send answers' }).click();
      expect(await question.locator('.problem').textContent()).toBe('Answer “Position” first.');
      await question.getByLabel('Position').fill('B2-14, B2-15');
      await page.screenshot({ path: shot('free-text-card') });
      await question.getByRole('button', { name: 'Send answers' }).click();

      const approval = page.locator('form.approval-card');
      await approval.waitFor();
      expect(await approval.locator('.tool-name').textContent()).toBe('store_vials');
      expect(await approval.locator('.asker').textContent()).toBe('Requested by ln2-web › storage');
      await expect
        .poll(() => approval.locator('.reason').textContent())
        .toBe('Adds 2 vial(s) of HeLa at B2-14, B2-15.');
      expect(await page.locator('.tool.done', { hasText: 'Answered' }).textContent()).toBe(
        '✓ Answered: Position: B2-14, B2-15',
      );
      await approval.getByLabel('Reason (optional)').fill('wrong rack');
      await approval.getByRole('button', { name: 'Reject' }).click();

      const reply = page.locator('.bubble.assistant').last();
      await expect
        .poll(() => reply.textContent(), { timeout: 15_000 })
        .toContain(
          'The storage agent reports: You rejected storing 2 vial(s) of HeLa at B2-14, B2-15 (“wrong rack”), so nothing was stored and the freezer is unchanged. To store them, ask again with the positions you want.',
        );
      expect(await page.locator('form.card').count()).toBe(0);
    });
  },
);
