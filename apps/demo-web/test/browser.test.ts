/**
 * The page in a real browser (see `chromium.ts`): questions, approvals, reloads, languages, a
 * sub-agent's free-text question, and a second browser answering while the first follows live.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, available, choice, send, useBrowser } from './chromium.js';

const { openPage } = useBrowser();

describe.skipIf(!available)('the web demo in Chromium', () => {
  it('asks with a card, survives a reload, takes an approval and shows the transcript', async () => {
    const page = await openPage('/?lang=en');
    await expect.poll(() => page.locator('.empty').textContent()).toContain('thaw vials');
    await page.getByLabel('Message').fill('Thaw vials for tomorrow’s experiment');
    await page.getByRole('button', { name: 'Send' }).click();

    const card = page.locator('form.question-card');
    await card.waitFor();
    expect(page.url()).toMatch(/[?&]run=run_[A-Za-z0-9_-]{22}/);
    const runUrl = page.url();
    await expect
      .poll(() => card.locator('legend').allTextContents())
      .toEqual([
        'Cell linesWhich cell lines should I thaw (one vial each)?',
        'MediumWhich medium should the vials go into?',
      ]);
    const interactionId = await card.getAttribute('data-id');
    const offered = await card.locator('fieldset[data-question="lines"]').textContent();
    expect(offered).toContain('suspension · box A3 · 3 vials left');
    expect(offered).toContain('adherent · box B4 · 3 vials left');
    await choice(card, 'lines', 'K562').check();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'question-card.png') });

    await page.reload();
    const again = page.locator('form.question-card');
    await again.waitFor();
    expect(await again.getAttribute('data-id')).toBe(interactionId);
    expect(page.url()).toBe(runUrl);

    const lines = again.locator('fieldset[data-question="lines"]');
    await choice(again, 'lines', 'K562').check();
    await choice(again, 'lines', 'HEK293T').check();
    await lines.getByLabel('Your own answer for Cell lines').fill('MCF-7');
    expect(await lines.locator('input[data-other]').isChecked()).toBe(true);
    await lines.getByLabel('Note (optional)').fill('use the newest vials');
    await choice(again, 'medium', 'DMEM').check();
    await again.getByRole('button', { name: 'Submit answers' }).click();

    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    expect(await approval.locator('.tool-name').textContent()).toBe('thaw_vials');
    expect(JSON.parse(await approval.locator('textarea.json').inputValue())).toEqual({
      cellLines: ['K562', 'HEK293T', 'MCF-7'],
      medium: 'DMEM',
    });
    await approval.getByLabel('Rationale (optional)').fill('needed for the 9:00 assay');
    await approval.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'approval-card.png') });
    await approval.getByRole('button', { name: 'Approve' }).click();

    const final = page.locator('.bubble.assistant').last();
    await expect.poll(() => final.textContent(), { timeout: 15_000 }).toContain('Spin them down');
    await expect.poll(() => page.locator('form.card').count()).toBe(0);
    await expect.poll(() => page.locator('.bubble.live').count()).toBe(0);
    const transcript = ((await page.locator('#log').textContent()) ?? '').replace(/\s+/g, ' ');
    for (const expected of [
      'Thaw vials for tomorrow’s experiment',
      'Cell lines: K562, HEK293T, Other (custom: MCF-7) (note: use the newest vials)',
      'Medium: DMEM',
      'I thawed K562 (A3-12), HEK293T (B4-07) into DMEM.',
      'MCF-7: not in this freezer',
    ]) {
      expect(transcript).toContain(expected);
    }
    // The final answer is the agent's typed thaw plan (output: ThawPlan), drawn as a table, never as
    // JSON. The vials left are counted after the thaw: one fewer than the card offered.
    const plan = page.locator('.bubble.plan').last();
    expect(
      await plan
        .locator('table.plan-table tr')
        .evaluateAll((rows) =>
          rows.map((row) => Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent)),
        ),
    ).toEqual([
      ['Cell line', 'Box', 'Positions', 'Vials left'],
      ['K562', 'A3', 'A3-12', '2'],
      ['HEK293T', 'B4', 'B4-07', '2'],
    ]);
    expect(await plan.locator('.plan-facts').textContent()).toBe('MediumDMEM');
    expect(await plan.locator('.plan-next li').allTextContents()).toEqual([
      'Spin them down within 10 minutes and label the flasks with today’s date.',
    ]);
    expect(transcript).not.toContain('{"summary"');
    const view = await page.evaluate(
      async (runId) => (await fetch(`/api/runs/${runId}`)).json(),
      new URL(runUrl).searchParams.get('run'),
    );
    expect(view.output).toEqual({
      summary:
        'Done. I thawed K562 (A3-12), HEK293T (B4-07) into DMEM.\nMCF-7: not in this freezer, so nothing was thawed for it.',
      thawed: [
        { cellLine: 'K562', box: 'A3', positions: ['A3-12'], vialsLeft: 2 },
        { cellLine: 'HEK293T', box: 'B4', positions: ['B4-07'], vialsLeft: 2 },
      ],
      medium: 'DMEM',
      followUps: [],
      nextSteps: ['Spin them down within 10 minutes and label the flasks with today’s date.'],
    });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-web.png') });

    const other = await openPage(`${new URL(runUrl).search.replace('lang=en', 'lang=zh-CN')}`);
    await expect.poll(() => other.locator('.bubble').count()).toBeGreaterThan(3);
    expect(await other.getByRole('button', { name: '发送' }).count()).toBe(1);
    expect(await other.locator('h1').textContent()).toBe('液氮罐库存助手');
    await other.screenshot({ path: join(ARTIFACTS, 'demo-web-zh.png') });
  });

  it('asks a sub-agent’s free-text question in a text field, refuses it empty, and names the asker', async () => {
    const page = await openPage('/?lang=en');
    await page.getByLabel('Message').fill('Store 2 new vials of HeLa');
    await page.getByRole('button', { name: 'Send' }).click();

    const card = page.locator('form.question-card');
    await card.waitFor();
    expect(await card.locator('.asker').textContent()).toBe('Asked by ln2-web › storage');
    const fieldset = card.locator('fieldset[data-question="position"]');
    expect(await fieldset.locator('legend').textContent()).toBe(
      'PositionWhere should the new HeLa vials go? One position per vial, e.g. B2-14, B2-15.',
    );
    expect(await fieldset.getByRole('radio').count()).toBe(0);
    expect(await fieldset.getByRole('checkbox').count()).toBe(0);
    expect(await fieldset.getByText('Other').count()).toBe(0);
    expect(await fieldset.getByLabel('Note (optional)').count()).toBe(0);

    await card.getByRole('button', { name: 'Submit answers' }).click();
    await expect
      .poll(() => card.locator('.error').textContent())
      .toBe('Type an answer for Position first (or dismiss the question).');
    expect(await card.isVisible()).toBe(true);
    const answer = fieldset.getByLabel('Your answer for Position');
    await expect.poll(() => answer.evaluate((field) => field === document.activeElement)).toBe(true);
    await answer.fill('B2-14, B2-15');
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'free-text-card.png') });
    await card.getByRole('button', { name: 'Submit answers' }).click();

    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    expect(await approval.locator('.asker').textContent()).toBe('Requested by ln2-web › storage');
    expect(await approval.locator('.tool-name').textContent()).toBe('store_vials');
    expect(JSON.parse(await approval.locator('textarea.json').inputValue())).toEqual({
      cellLine: 'HeLa',
      positions: ['B2-14', 'B2-15'],
    });
    await approval.getByRole('button', { name: 'Approve' }).click();
    const final = page.locator('.bubble.assistant').last();
    await expect
      .poll(() => final.textContent(), { timeout: 15_000 })
      .toContain('The storage agent reports: Stored 2 vial(s) of HeLa at B2-14, B2-15.');
  });

  it('keeps each decision in the transcript: the approval, its rationale, the edited input, the form’s value', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'Thaw vials for tomorrow');
    const card = page.locator('form.question-card');
    await card.waitFor();
    await choice(card, 'lines', 'HeLa').check();
    await choice(card, 'medium', 'DMEM').check();
    await card.getByRole('button', { name: 'Submit answers' }).click();
    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    await approval.locator('textarea.json').fill('{ "cellLines": ["K562"], "medium": "RPMI-1640" }');
    await approval.getByLabel('Rationale (optional)').fill('K562 first, in RPMI');
    await approval.getByRole('button', { name: 'Approve edited input' }).click();
    await expect
      .poll(() => page.locator('.bubble.assistant').last().textContent(), { timeout: 15_000 })
      .toContain('I thawed K562 (A3-12) into RPMI-1640.');
    // The turn's request has ended (the page sends nothing while one is in flight).
    await expect.poll(() => page.locator('#status').textContent()).toBe('');

    await send(page, 'Thaw vials for tomorrow');
    await choice(card, 'lines', 'HeLa').check();
    await choice(card, 'medium', 'DMEM').check();
    await card.getByRole('button', { name: 'Submit answers' }).click();
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    const form = page.locator('form.input-card');
    await form.waitFor();
    await form.getByRole('radio', { name: 'D2' }).check();
    await form.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.locator('.bubble.assistant').last().textContent(), { timeout: 15_000 })
      .toContain('I thawed HeLa (D2-11) into DMEM.');

    const expected = [
      [
        '✓ You approved thaw_vials',
        'With your edited input: {"cellLines":["K562"],"medium":"RPMI-1640"}',
        'Rationale: K562 first, in RPMI',
      ],
      ['✓ You approved thaw_vials'],
      ['✓ Form of thaw_vials: HeLa: D2'],
    ];
    const decisions = () =>
      page
        .locator('#log .decision')
        .evaluateAll((nodes) =>
          nodes.map((node) => Array.from(node.querySelectorAll('p'), (line) => line.textContent)),
        );
    await expect.poll(decisions).toEqual(expected);
    // The decisions are the run's, not the page's: a reload and another browser show them too.
    await page.reload();
    await expect.poll(decisions).toEqual(expected);
    const other = await openPage(new URL(page.url()).search);
    await expect.poll(() => other.locator('#log .decision').count()).toBe(3);
  });

  it('says what was rejected and what happens next when the storage sub-agent’s call is rejected', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'Store 2 new vials of HeLa');
    const card = page.locator('form.question-card');
    await card.waitFor();
    await card.getByLabel('Your answer for Position').fill('B2-14, B2-15');
    await card.getByRole('button', { name: 'Submit answers' }).click();
    const approval = page.locator('form.approval-card');
    await approval.waitFor();
    await approval.getByLabel('Rationale (optional)').fill('B2 is full');
    await approval.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => page.locator('.bubble.assistant').last().textContent(), { timeout: 15_000 })
      .toContain(
        'The storage agent reports: You rejected storing 2 vial(s) of HeLa at B2-14, B2-15 (“B2 is full”), so nothing was stored and the freezer is unchanged. To store them, ask again with the positions you want.',
      );
    await expect
      .poll(() => page.locator('#log .decision').allTextContents())
      .toEqual(['✕ You rejected store_vialsRationale: B2 is full']);
  });

  it('names no asker on the cards of the top agent', async () => {
    const page = await openPage('/?lang=zh-CN');
    await page.locator('#message').fill('帮我解冻细胞');
    await page.locator('#composer button[type="submit"]').click();
    await page.locator('form.question-card').waitFor();
    expect(await page.locator('.asker').count()).toBe(0);
  });

  it('lets another browser answer the pending question, and the first one follows live', async () => {
    const first = await openPage('/');
    await first.getByLabel('Message').fill('Thaw one vial');
    await first.getByRole('button', { name: 'Send' }).click();
    await first.locator('form.question-card').waitFor();

    const second = await openPage(new URL(first.url()).search);
    const card = second.locator('form.question-card');
    await choice(card, 'lines', 'HeLa').check();
    await choice(card, 'medium', 'DMEM').check();
    await card.getByRole('button', { name: 'Submit answers' }).click();
    await second.locator('form.approval-card').waitFor();

    await first.locator('form.approval-card').waitFor();
    expect(await first.locator('form.question-card').count()).toBe(0);
    await first.locator('form.approval-card').getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => second.locator('#log').textContent())
      .toContain('Understood: nothing was thawed.');
  });
});
