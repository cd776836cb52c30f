/**
 * A handoff in the web demo, in Chromium (DESIGN §27): an incubator question is handed from the
 * LN2 assistant to the lab desk, which asks which incubator; the page says who takes over and
 * labels what each agent says, also after a reload (the transcript alone tells it), and the desk
 * hands the run back for the vials.
 */
import { describe, expect, it } from 'vitest';
import { available, send, useBrowser } from './chromium.js';

const { openPage } = useBrowser();

describe.skipIf(!available)('a handoff, in Chromium', () => {
  it('shows who takes over and who speaks, and goes back to the freezer assistant', async () => {
    const page = await openPage('/?lang=en');
    await send(page, 'Check the CO2 incubator, then thaw vials');
    const card = page.locator('form.question-card');
    await card.waitFor();
    await expect
      .poll(() => page.locator('.note.handoff').allTextContents())
      .toEqual(['⇄ lab-desk takes over']);
    expect(await card.textContent()).toContain('Which incubator should I read?');

    await page.reload();
    const again = page.locator('form.question-card');
    await again.waitFor();
    expect(await page.locator('.note.handoff').allTextContents()).toEqual(['⇄ lab-desk takes over']);
    await again.getByRole('radio', { name: /^Incubator 2/ }).check();
    await again.getByRole('button', { name: 'Submit answers' }).click();

    await expect
      .poll(() => page.locator('.note.handoff').allTextContents())
      .toEqual(['⇄ lab-desk takes over', '⇄ ln2-web takes over']);
    const desk = page.locator('.bubble.assistant', { hasText: 'Incubator 2 reads' });
    await desk.waitFor();
    expect(await desk.locator('.who').textContent()).toBe('Assistant · lab-desk');
    // The freezer assistant goes on: it asks which lines to thaw.
    await page.locator('form.question-card fieldset').first().waitFor();
    await expect.poll(() => page.locator('form.question-card').textContent()).toContain('Cell lines');
  });
});
