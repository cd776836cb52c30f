/**
 * The page at common window sizes (issue 29): at 1280×800, 1440×900 and 390×844 every card's
 * buttons are where the page scrolls them, visible above the composer and not covered by it
 * (`elementFromPoint` at a button's centre is the button), with nothing scrolled by the test; the
 * phone's header keeps the run id on one line; the Chinese run marks the recommended option in
 * Chinese; on a phone the composer shows its whole placeholder, in both languages.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, choice, coveredActions, send, useBrowser, VIEWPORTS } from './chromium.js';

const { openPage } = useBrowser();

/** Waits until the page has placed `card` and no button of it is covered or out of view. */
async function expectActionsVisible(card: Locator): Promise<void> {
  await card.waitFor();
  await expect.poll(() => card.locator('.actions button').count()).toBeGreaterThan(0);
  await expect.poll(() => coveredActions(card)).toEqual([]);
}

/** The run id's box in the header, and the height of one line of it. */
function runIdBox(page: Page) {
  return page.locator('#run-id').evaluate((node) => {
    const style = getComputedStyle(node);
    const box = node.getBoundingClientRect();
    const header = document.querySelector('header.top')!.getBoundingClientRect();
    return {
      whiteSpace: style.whiteSpace,
      textOverflow: style.textOverflow,
      lines: Math.round(box.height / Number.parseFloat(style.lineHeight)),
      inHeader: box.right <= header.right && box.left >= header.left,
      fullId: node.getAttribute('title'),
    };
  });
}

/**
 * The composer's placeholder, and whether the empty box shows all of it: the height its text needs
 * (measured as a value, at the box's present size) against the box's height.
 */
function composerPlaceholder(page: Page) {
  return page.locator('#message').evaluate((node: HTMLTextAreaElement) => {
    const shown = node.clientHeight;
    const { placeholder } = node;
    node.style.height = `${node.offsetHeight}px`;
    node.style.setProperty('field-sizing', 'fixed');
    node.value = placeholder;
    const needed = node.scrollHeight;
    node.value = '';
    node.removeAttribute('style');
    return { placeholder, whole: needed <= shown };
  });
}

describe.skipIf(!available)('the web demo at common window sizes', () => {
  it('shows the whole placeholder of the composer on a phone, before a run and with a question open', async () => {
    for (const [lang, locale, message, idle, pending] of [
      [
        'en',
        'en-US',
        'Thaw vials for tomorrow',
        'Try “Thaw vials for tomorrow”',
        'Or type a new message instead',
      ],
      ['zh-CN', 'zh-CN', '帮我解冻细胞', '试试“为明天的实验解冻细胞”', '或输入新消息（取代当前问题）'],
    ] as const) {
      const page = await openPage(`/?lang=${lang}`, locale, VIEWPORTS.phone);
      await expect.poll(() => composerPlaceholder(page)).toEqual({ placeholder: idle, whole: true });
      await send(page, message);
      await page.locator('form.question-card').waitFor();
      await expect.poll(() => composerPlaceholder(page)).toEqual({ placeholder: pending, whole: true });
      await page.screenshot({ path: join(ARTIFACTS, `layout-phone-composer-${lang}.png`) });
    }
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`shows every card's buttons above the composer at ${viewport.width}×${viewport.height} (${name})`, async () => {
      const page = await openPage('/?lang=en', 'en-US', viewport);
      await send(page, 'Thaw vials for tomorrow');

      const question = page.locator('form.question-card');
      await expectActionsVisible(question);
      await page.screenshot({ path: join(ARTIFACTS, `layout-${name}-question.png`) });
      await choice(question, 'lines', 'HeLa').check();
      await choice(question, 'medium', 'DMEM').check();
      // The page scrolls the card back after a reload too.
      await page.reload();
      await expectActionsVisible(page.locator('form.question-card'));
      await choice(question, 'lines', 'HeLa').check();
      await choice(question, 'medium', 'DMEM').check();
      await question.getByRole('button', { name: 'Submit answers' }).click();

      const approval = page.locator('form.approval-card');
      await expectActionsVisible(approval);
      await page.screenshot({ path: join(ARTIFACTS, `layout-${name}-approval.png`) });
      await approval.getByRole('button', { name: 'Approve', exact: true }).click();

      const form = page.locator('form.input-card');
      await expectActionsVisible(form);
      await form.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => page.locator('.bubble.assistant').last().textContent(), { timeout: 15_000 })
        .toContain('I thawed HeLa (B1-02) into DMEM.');

      const runId = runIdBox(page);
      expect(await runId).toMatchObject({
        whiteSpace: 'nowrap',
        textOverflow: 'ellipsis',
        lines: 1,
        inHeader: true,
      });
      expect((await runId).fullId).toMatch(/^run_/);
    });
  }

  it('keeps the run id on one line in the phone’s header, in Chinese too', async () => {
    const page = await openPage('/?lang=zh-CN', 'zh-CN', VIEWPORTS.phone);
    await send(page, '帮我解冻细胞');
    await expectActionsVisible(page.locator('form.question-card'));
    expect(await runIdBox(page)).toMatchObject({ whiteSpace: 'nowrap', lines: 1, inHeader: true });
    const header = await page.locator('header.top').boundingBox();
    const button = await page.locator('#lang').boundingBox();
    // Everything in the header is on its one row, inside the window.
    expect(button!.x + button!.width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    expect(button!.y + button!.height).toBeLessThanOrEqual(header!.y + header!.height);
    await page.screenshot({ path: join(ARTIFACTS, 'layout-phone-zh.png') });
  });

  it('marks the recommended medium in Chinese on a Chinese run, and understands the answer', async () => {
    const page = await openPage('/?lang=zh-CN', 'zh-CN');
    await send(page, '帮我解冻细胞');
    const card = page.locator('form.question-card');
    await card.waitFor();
    const labels = await card.locator('fieldset[data-question="medium"] .label').allTextContents();
    expect(labels).toEqual(['RPMI-1640（推荐）', 'DMEM', '其他']);
    expect(await page.locator('body').textContent()).not.toMatch(/Recommended/i);
    await choice(card, 'lines', 'K562').check();
    await choice(card, 'medium', 'RPMI-1640（推荐）').check();
    await card.getByRole('button', { name: '提交回答' }).click();
    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    expect(JSON.parse(await approval.locator('textarea.json').inputValue())).toEqual({
      cellLines: ['K562'],
      medium: 'RPMI-1640',
    });
  });
});
