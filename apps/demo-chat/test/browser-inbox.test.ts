/**
 * The useChat demo's inbox in Chromium, at 1280×800 and 390×844: three runs paused on a question,
 * an approval and a form show as "Inbox (3)" in the chat's header and on `/inbox.html` oldest
 * first; each is answered in place with the chat's own card, leaves the list, and its run goes on
 * (`GET /api/runs/:id` shows it); the ask a run makes next shows up; at the end the inbox is empty.
 * Paging: with a page of 2, "More" reads the third, in Chinese.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, withChromium } from './chromium.js';
import { withChatServer } from './helpers.js';

const { server } = withChatServer();
const openPage = withChromium();

interface View {
  runId: string;
  status: string;
  pending: { id: string; kind: string }[];
}

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

const items = (page: Page) => page.locator('.inbox-list > .inbox-item');
const shown = (page: Page) =>
  items(page).evaluateAll((nodes) =>
    nodes.map((node) => `${(node as HTMLElement).dataset.runId} ${(node as HTMLElement).dataset.kind}`),
  );
const statusOf = async (runId: string) => (await api('GET', `/runs/${runId}`)).status;
const item = (page: Page, runId: string) => page.locator(`.inbox-item[data-run-id="${runId}"]`);

describe.skipIf(!available)('the useChat demo’s inbox in Chromium', () => {
  for (const [name, viewport] of [
    ['1280×800', { width: 1280, height: 800 }],
    ['390×844', { width: 390, height: 844 }],
  ] as const) {
    it(`lists the pending asks of every chat oldest first and answers each in place (${name})`, async () => {
      const runs = await threePausedRuns();
      const page = await openPage(server().url, viewport);
      const link = page.locator('#inbox-link');
      await expect.poll(() => link.textContent()).toBe('Inbox (3)');
      await link.click();
      await page.waitForURL(/\/inbox\.html/);
      await expect
        .poll(() => shown(page))
        .toEqual([`${runs.question} question`, `${runs.approval} approval`, `${runs.form} input`]);
      const first = items(page).first();
      expect(await first.locator('.summary').textContent()).toBe(
        'Which cell lines should I thaw (one vial each)?',
      );
      expect(await first.locator('.run code').textContent()).toBe(runs.question.slice(0, 12));
      expect(await first.locator('.kind dd').textContent()).toBe('question');
      expect(await first.locator('.expires time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await first.locator('a.open-run').getAttribute('href')).toBe(`/?chat=${runs.question}`);
      await page.screenshot({ path: join(ARTIFACTS, `inbox-${viewport.width}.png`) });

      await item(page, runs.approval).getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => statusOf(runs.approval)).toBe('completed');
      await expect.poll(() => shown(page)).toEqual([`${runs.question} question`, `${runs.form} input`]);

      const form = item(page, runs.form).locator('form.form-card');
      await form.getByRole('radio', { name: 'D2' }).check();
      await form.getByRole('button', { name: 'Send', exact: true }).click();
      await expect.poll(() => statusOf(runs.form)).toBe('completed');
      await expect.poll(() => shown(page)).toEqual([`${runs.question} question`]);

      const question = item(page, runs.question).locator('form.question-card');
      await question.getByRole('checkbox', { name: /^K562/ }).check();
      await question.getByRole('radio', { name: /^DMEM/ }).check();
      await question.getByRole('button', { name: 'Send answers' }).click();
      await expect.poll(() => shown(page)).toEqual([`${runs.question} approval`]);
      expect((await api('GET', `/runs/${runs.question}`)).pending.map((p) => p.kind)).toEqual(['approval']);
      await item(page, runs.question).getByRole('button', { name: 'Reject' }).click();
      await expect.poll(() => statusOf(runs.question)).toBe('completed');
      await expect.poll(() => items(page).count()).toBe(0);
      await expect.poll(() => page.locator('.empty').textContent()).toBe('Nothing is waiting for an answer.');
      const response = await fetch(new URL('/api/interactions', server().url));
      expect(((await response.json()) as { items: unknown[] }).items).toEqual([]);
    });
  }

  it('reads the next page with "More", in Chinese, and opens a chat from its item', async () => {
    const runs = await threePausedRuns();
    const page = await openPage(new URL('/inbox.html?limit=2&lang=zh', server().url).toString());
    await expect.poll(() => shown(page)).toEqual([`${runs.question} question`, `${runs.approval} approval`]);
    expect(await page.locator('h1').textContent()).toBe('等待回答');
    await page.getByRole('button', { name: '更多' }).click();
    await expect
      .poll(() => shown(page))
      .toEqual([`${runs.question} question`, `${runs.approval} approval`, `${runs.form} input`]);
    expect(await page.getByRole('button', { name: '更多' }).count()).toBe(0);
    expect(await items(page).first().locator('.kind dd').textContent()).toBe('问题');

    await item(page, runs.form).locator('a.open-run').click();
    await page.waitForURL(/\?chat=/);
    await page.locator('form.form-card').waitFor();
    for (const runId of [runs.question, runs.approval, runs.form]) {
      const view = await api('GET', `/runs/${runId}`);
      const kind = view.pending[0]?.kind;
      await api('POST', `/runs/${runId}/${kind === 'approval' ? 'reject' : 'cancel'}`, {
        id: view.pending[0]?.id,
      });
    }
  });
});
