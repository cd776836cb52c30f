/**
 * The form card on its own, in Chromium (see `chromium.ts`): a card built by the page's own
 * `form-card.js` from a schema with every kind of field the page draws (an enum, a boolean, a
 * number, an optional string, an array typed as JSON), filled in and sent; and a schema that is not
 * an object of fields, typed as one JSON value. What it sends is what `POST /runs/:id/input` gets.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { available, useBrowser } from './chromium.js';

const { openPage } = useBrowser();

const SCHEMA = {
  type: 'object',
  properties: {
    box: { type: 'string', enum: ['B1', 'D2'], title: 'Box' },
    urgent: { type: 'boolean', title: 'Urgent' },
    vials: { type: 'integer', title: 'Vials' },
    note: { type: 'string', title: 'Note' },
    tags: { type: 'array', items: { type: 'string' }, title: 'Tags' },
  },
  required: ['box', 'urgent', 'vials'],
};

/**
 * Shows a form card for `schema` on the page, built by the page's own modules; what it sends lands
 * in `window.sent`. The script is a string: the test runner rewrites `import()` in test code.
 */
async function showForm(page: Page, schema: unknown): Promise<void> {
  await page.evaluate(`(async () => {
    const { inputCard } = await import('/form-card.js');
    const { translator } = await import('/i18n.js');
    const interaction = {
      id: 'lab:1',
      kind: 'input',
      toolName: 'label_vials',
      agentPath: ['ln2-web'],
      payload: { message: 'How should the vials be labelled?', schema: ${JSON.stringify(schema)} },
    };
    window.sent = [];
    const card = inputCard(interaction, translator('en'), {
      onSubmit: async (value) => window.sent.push(value),
      onDismiss: async () => window.sent.push('dismissed'),
    });
    document.querySelector('#pending').append(card);
  })()`);
}

const sent = (page: Page) => page.evaluate(() => (window as unknown as { sent: unknown[] }).sent);

describe.skipIf(!available)('the form card in Chromium', () => {
  it('draws each kind of field, refuses what the page can check, and sends the value', async () => {
    const page = await openPage('/?lang=en');
    await showForm(page, SCHEMA);
    const card = page.locator('form.input-card');
    expect(await card.locator('.tool-name').textContent()).toBe('label_vials');
    expect(await card.getByRole('radio', { name: 'B1' }).isChecked()).toBe(true);
    await card.getByRole('radio', { name: 'D2' }).check();
    await card.getByRole('checkbox', { name: 'Urgent' }).check();
    expect(await card.locator('[data-form-field="3"] .field').textContent()).toBe('Note(optional)');

    await card.getByRole('button', { name: 'Send' }).click();
    expect(await card.locator('.error').textContent()).toBe('Fill in Vials first (or dismiss the form).');
    await card.getByLabel('Vials').fill('two');
    await card.getByRole('button', { name: 'Send' }).click();
    expect(await card.locator('.error').textContent()).toBe('Vials must be a number.');
    await card.getByLabel('Vials').fill('2');
    await card.getByLabel('Tags (JSON)').fill('["frozen", ');
    await card.getByRole('button', { name: 'Send' }).click();
    expect(await card.locator('.error').textContent()).toBe('Tags is not valid JSON.');
    await card.getByLabel('Tags (JSON)').fill('["frozen"]');
    await card.getByRole('button', { name: 'Send' }).click();
    expect(await sent(page)).toEqual([{ box: 'D2', urgent: true, vials: 2, tags: ['frozen'] }]);

    await card.getByRole('button', { name: 'Dismiss' }).click();
    expect((await sent(page)).at(-1)).toBe('dismissed');
  });

  it('types a schema that is not an object of fields as one JSON value', async () => {
    const page = await openPage('/?lang=en');
    await showForm(page, { type: 'array', items: { type: 'number' } });
    const card = page.locator('form.input-card');
    await card.getByLabel('Value (JSON)').fill('[1, 2]');
    await card.getByRole('button', { name: 'Send' }).click();
    expect(await sent(page)).toEqual([[1, 2]]);
  });
});
