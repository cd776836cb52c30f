/**
 * The handoff scenario of the offline demo (DESIGN §27): an incubator question is handed to the lab
 * desk, which asks which incubator — a pause in the agent handed to, left by this process and
 * answered in another — reads it and hands the run back to the freezer assistant for the thaw.
 * Who speaks is shown: `⇄ lab-desk takes over`, `Asked by lab-desk`, `Agent · lab-desk ›`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

afterAll(cleanup);

const MESSAGE = 'Check the CO2 incubator, then thaw one HeLa vial';

describe('turnkit-demo, handing off to the lab desk and back', () => {
  it('pauses in the lab desk, resumes there in another process, and hands back for the thaw', async () => {
    const dir = tempDir();
    const first = await runCli([MESSAGE], { input: '', dir });
    expect(first.stdout).toContain('Agent › The incubators are the lab desk’s: handing you over.');
    expect(first.stdout).toContain('  ⇄ lab-desk takes over');
    expect(first.stdout).toContain('│ Asked by lab-desk');
    expect(first.stdout).toContain('│ Which incubator should I read?');
    const runId = runIdOf(first.stdout);

    const resumed = await runCli(['resume', runId], { input: '2\na\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      'Agent · lab-desk › Incubator 2 reads 37.0 °C and 5.0 % CO2; its door is closed.',
    );
    expect(resumed.stdout).toContain('  ⇄ ln2-inventory takes over');
    expect(resumed.stdout).toContain('Agent › Done: thawed 1 vial of HeLa from box 1 (A1), 2 left.');
    const messages = await transcript(dir, runId);
    expect(toolResults(messages, 'read_incubator')).toHaveLength(1);
    expect(toolResults(messages, 'record_thaw')).toHaveLength(1);
    expect(toolResults(messages, 'transfer_to_lab-desk')).toEqual([
      '{"ok":true,"transferred_to":"lab-desk"}',
    ]);
    expect(toolResults(messages, 'transfer_to_ln2-inventory')).toEqual([
      '{"ok":true,"transferred_to":"ln2-inventory"}',
    ]);
  });
});
