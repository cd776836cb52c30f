/**
 * The inbox page in Chromium (see `chromium.ts`), at 1280×800 and 390×844: three runs paused on a
 * question, an approval and a form are listed oldest first under "Inbox (3)"; each is answered in
 * place with its own card, leaves the list, and its run goes on (`GET /api/runs/:id` shows it); an
 * ask the run makes next shows up in the list; at the end the inbox is empty. Paging: with a page
 * of 2, "More" reads the third, in Chinese.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, choice, useBrowser, VIEWPORTS } from './chromium.js';

const { openPage, server } = useBrowser();

interface View {
  runId: string;
  status: string;
  pending: { id: string; kind: string }[];
}

/** Calls the demo's API from the test (as another client would). */
async function api(method: string, path: string, body?: unknown): Promise<View> {
  const response = await fetch(new URL(`/api${path}`, server().url), {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json()) as View;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}

const THAW = 'Thaw vials for tomorrow';

/** Three runs, started in this order: paused on a question, on an approval, on a form. */
async function threePausedRuns(): Promise<{ question: string; approval: string; form: string }> {
  const question = await api('POST', '/runs', { input: THAW });
  expect(question.pending.map((p) => p.kind)).toEqual(['question']);

  let approval = await api('POST', '/runs', { input: THAW });
  approval = await api('POST', `/runs/${approval.runId}/answer`, {
    id: approval.pending[0]?.id,
    answers: { lines: { selected: ['K562'] }, medium: 'DMEM' },
  });
  expect(approval.pending.map((p) => p.kind)).toEqual(['approval']);

  let form = await api('POST', '/runs', { input: THAW });
  form = await api('POST', `/runs/${form.runId}/answer`, {
    id: form.pending[0]?.id,
    answers: { lines: { selected: ['HeLa'] }, medium: 'DMEM' },
  });
  form = await api('POST', `/runs/${form.runId}/approve`, { id: form.pending[0]?.id });
  expect(form.pending.map((p) => p.kind)).toEqual(['input']);
  return { question: question.runId, approval: approval.runId, form: form.runId };
}

const items = (page: Page) => page.locator('#inbox-list > .inbox-item');
const shown = (page: Page) =>
  items(page).evaluateAll((nodes) =>
    nodes.map((node) => `${(node as HTMLElement).dataset.runId} ${(node as HTMLElement).dataset.kind}`),
  );
const statusOf = async (runId: string) => (await api('GET', `/runs/${runId}`)).status;

describe.skipIf(!available)('the inbox page in Chromium', () => {
  for (const [name, viewport] of [
    ['1280×800', VIEWPORTS.laptop],
    ['390×844', VIEWPORTS.phone],
  ] as const) {
    it(`lists the pending asks of every run oldest first and answers each in place (${name})`, async () => {
      const runs = await threePausedRuns();
      const page = await openPage('/?lang=en', 'en-US', viewport);
      const link = page.locator('#inbox-link');
      await expect.poll(() => link.textContent()).toBe('Inbox (3)');
      await link.click();
      await page.waitForURL(/\/inbox\.html/);

      await expect
        .poll(() => shown(page))
        .toEqual([`${runs.question} question`, `${runs.approval} approval`, `${runs.form} input`]);
      const first = items(page).first();
      expect(await first.locator('.inbox-summary').textContent()).toBe(
        'Which cell lines should I thaw (one vial each)?',
      );
      expect(await first.locator('.run code').textContent()).toBe(runs.question.slice(0, 12));
      expect(await first.locator('.kind dd').textContent()).toBe('question');
      expect(await first.locator('.asked time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await first.locator('a.open-run').getAttribute('href')).toBe(`/?run=${runs.question}&lang=en`);
      await page.screenshot({ path: `test-artifacts/inbox-${viewport.width}.png`, fullPage: true });

      // The approval, approved in place: it leaves the list, and its run completes.
      const approval = page.locator(`.inbox-item[data-run-id="${runs.approval}"] form.approval-card`);
      await approval.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect.poll(() => statusOf(runs.approval)).toBe('completed');
      await expect.poll(() => shown(page)).toEqual([`${runs.question} question`, `${runs.form} input`]);

      // The form, sent in place: its run completes.
      const form = page.locator(`.inbox-item[data-run-id="${runs.form}"] form.input-card`);
      await form.getByRole('radio', { name: 'D2' }).check();
      await form.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => statusOf(runs.form)).toBe('completed');
      await expect.poll(() => shown(page)).toEqual([`${runs.question} question`]);

      // The question, answered in place: the run goes on and asks for its approval, which the
      // list shows next; rejected in place, the run completes and the inbox is empty.
      const question = page.locator(`.inbox-item[data-run-id="${runs.question}"] form.question-card`);
      await choice(question, 'lines', 'K562').check();
      await choice(question, 'medium', 'DMEM').check();
      await question.getByRole('button', { name: 'Submit answers' }).click();
      await expect.poll(() => shown(page)).toEqual([`${runs.question} approval`]);
      expect((await api('GET', `/runs/${runs.question}`)).pending.map((p) => p.kind)).toEqual(['approval']);
      const next = page.locator(`.inbox-item[data-run-id="${runs.question}"] form.approval-card`);
      await next.getByRole('button', { name: 'Reject' }).click();
      await expect.poll(() => statusOf(runs.question)).toBe('completed');
      await expect.poll(() => items(page).count()).toBe(0);
      await page.locator('#inbox-empty').waitFor({ state: 'visible' });
      expect(await page.locator('#inbox-empty').textContent()).toBe('Nothing is waiting for an answer.');
      const response = await fetch(new URL('/api/interactions', server().url));
      expect(((await response.json()) as { items: unknown[] }).items).toEqual([]);
    });
  }

  it('keeps the phone header on one row: run id, inbox count, new run and language apart', async () => {
    const run = await api('POST', '/runs', { input: '帮我解冻细胞' });
    const page = await openPage(`/?run=${run.runId}&lang=zh-CN`, 'zh-CN', VIEWPORTS.phone);
    const link = page.locator('#inbox-link');
    await expect.poll(() => link.textContent()).toBe('待办 (1)');
    expect(await link.getAttribute('aria-label')).toBe('待办 (1)');
    await page.locator('#run-id').waitFor();
    const boxes = await Promise.all(
      ['#run-id', '#inbox-link', '#new-run', '#lang'].map((selector) => page.locator(selector).boundingBox()),
    );
    for (let i = 1; i < boxes.length; i++) {
      // Each starts after the one before it ends, on the same row, inside the window.
      expect(boxes[i]!.x).toBeGreaterThanOrEqual(boxes[i - 1]!.x + boxes[i - 1]!.width);
      expect(
        Math.abs(boxes[i]!.y + boxes[i]!.height / 2 - (boxes[0]!.y + boxes[0]!.height / 2)),
      ).toBeLessThan(8);
    }
    expect(boxes[3]!.x + boxes[3]!.width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await page.screenshot({ path: 'test-artifacts/inbox-header-390.png' });
    await api('POST', `/runs/${run.runId}/cancel`, { id: run.pending[0]?.id });
  });

  it('reads the next page with "More", in Chinese', async () => {
    const runs = await threePausedRuns();
    const page = await openPage('/inbox.html?limit=2&lang=zh-CN', 'zh-CN');
    await expect.poll(() => shown(page)).toEqual([`${runs.question} question`, `${runs.approval} approval`]);
    expect(await page.locator('h2').textContent()).toBe('等待回答');
    const more = page.locator('#more');
    expect(await more.textContent()).toBe('更多');
    await more.click();
    await expect
      .poll(() => shown(page))
      .toEqual([`${runs.question} question`, `${runs.approval} approval`, `${runs.form} input`]);
    await more.waitFor({ state: 'hidden' });
    expect(await items(page).first().locator('.kind dd').textContent()).toBe('问题');

    // Answered by someone else meanwhile: Refresh drops it.
    await api('POST', `/runs/${runs.approval}/reject`, {
      id: (await api('GET', `/runs/${runs.approval}`)).pending[0]?.id,
    });
    await page.locator('#refresh').click();
    await expect.poll(() => shown(page)).toEqual([`${runs.question} question`, `${runs.form} input`]);
    for (const runId of [runs.question, runs.form]) {
      const view = await api('GET', `/runs/${runId}`);
      await api('POST', `/runs/${runId}/cancel`, { id: view.pending[0]?.id });
    }
  });
});
