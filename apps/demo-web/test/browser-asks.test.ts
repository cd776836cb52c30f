/**
 * Issue 13 in Chromium (see `chromium.ts`): `thaw_vials` asks which box mid-execution, and the
 * page draws the form from its JSON Schema (radio buttons for the enum), in English and Chinese,
 * and sends it with `POST /runs/:id/input`; the run's audit trail shows `execute` once and
 * `resume` once. Every card of a question that expires shows the time left.
 */
import { join } from 'node:path';
import { fileStore } from '@turnkit/adapters/file';
import { parseSnapshot } from '@turnkit/core';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Freezer } from '../src/freezer.js';
import { ARTIFACTS, available, choice, send, useBrowser } from './chromium.js';

const { openPage, dataDir } = useBrowser();

/** The steps of thaw_vials the audit trail of the page's run saw. */
async function steps(page: Page): Promise<string[]> {
  const runId = new URL(page.url()).searchParams.get('run')!;
  const stored = await fileStore(dataDir()).get(runId);
  const freezer = (parseSnapshot(stored!.snapshot).context as unknown as { json: Freezer }).json;
  return (freezer.audit ?? []).map((entry) => `${entry.tool}.${entry.step}`);
}

/** Picks HeLa (in two boxes) into DMEM on the question card, approves, and returns the form card. */
async function thawHeLa(page: Page, labels: { submit: string; approve: string }) {
  const card = page.locator('form.question-card');
  await card.waitFor();
  await choice(card, 'lines', 'HeLa').check();
  await choice(card, 'medium', 'DMEM').check();
  await card.getByRole('button', { name: labels.submit }).click();
  const approval = page.locator('form.approval-card');
  await approval.waitFor();
  await approval.getByRole('button', { name: labels.approve, exact: true }).click();
  const form = page.locator('form.input-card');
  await form.waitFor();
  return form;
}

describe.skipIf(!available)('a tool that asks mid-execution, in Chromium', () => {
  it('draws the box form from its schema, sends the choice, and the tool resumes once', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'Thaw vials for tomorrow');
    const question = page.locator('form.question-card');
    await question.waitFor();
    expect(await question.locator('.countdown').textContent()).toMatch(/^Time left to answer: [45]:\d\d$/);
    await page.reload();

    const form = await thawHeLa(page, { submit: 'Submit answers', approve: 'Approve' });
    expect(await form.locator('.card-kind').textContent()).toBe('Form');
    expect(await form.locator('.tool-name').textContent()).toBe('thaw_vials');
    expect(await form.locator('.message').textContent()).toBe(
      'Some of these lines are in more than one box. Which box should each vial come from?',
    );
    const field = form.locator('fieldset[data-form-field="0"]');
    expect(await field.locator('legend').textContent()).toBe('HeLa');
    expect(await field.locator('.hint').textContent()).toBe('B1: 2 vial(s) · D2: 2 vial(s)');
    expect(await field.getByRole('radio', { name: 'B1' }).isChecked()).toBe(true);
    expect(await steps(page)).toEqual(['thaw_vials.execute']);
    await field.getByRole('radio', { name: 'D2' }).check();
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'input-card.png') });
    await form.getByRole('button', { name: 'Send' }).click();

    const final = page.locator('.bubble.assistant').last();
    await expect
      .poll(() => final.textContent(), { timeout: 15_000 })
      .toContain('I thawed HeLa (D2-11) into DMEM.');
    await expect.poll(() => page.locator('form.card').count()).toBe(0);
    // The text streams in before the turn ends and is saved.
    await expect.poll(() => steps(page)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
  });

  it('asks in Chinese on a Chinese page, and takes the first box as it is', async () => {
    const page = await openPage('/?lang=zh-CN');
    await send(page, '帮我解冻细胞');
    const form = await thawHeLa(page, { submit: '提交回答', approve: '批准' });
    expect(await form.locator('.card-kind').textContent()).toBe('表单');
    expect(await form.locator('.message').textContent()).toBe(
      '有的细胞系分放在多个盒子里。每支从哪个盒子取？',
    );
    expect(await form.locator('.hint').textContent()).toBe('B1 盒 2 支 · D2 盒 2 支');
    await form.getByRole('button', { name: '提交' }).click();
    const final = page.locator('.bubble.assistant').last();
    await expect.poll(() => final.textContent(), { timeout: 15_000 }).toContain('HeLa (B1-02)');
    await expect.poll(() => steps(page)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
  });
});
