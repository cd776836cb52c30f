/**
 * A hook's review in the terminal (DESIGN §26), with `TURNKIT_REVIEW_THAWS=1`: before `record_thaw`
 * runs, the approval card shows the review — the hook and point, its reason, and the call's input
 * under review — then the tool's own approval; approving both records the thaw once. Rejecting the
 * review means the tool never runs, and the model reads the reviewer's rationale.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

afterAll(cleanup);

const env = { TURNKIT_REVIEW_THAWS: '1', TURNKIT_BUDGET_STEPS: '0' };

describe('turnkit-demo with thaw reviews', () => {
  it('shows the review card before the approval; approved, the thaw is recorded once', async () => {
    const dir = tempDir();
    // Answers, approve the review, approve record_thaw, no new message.
    const run = await runCli([], { input: '2\n1,3\na\n\na\n\n\n', dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('│ Tool    review by thaw-review (beforeTool)');
    expect(run.stdout).toContain('│ Reason  Thaws are reviewed by the lab manager before they are recorded.');
    const messages = await transcript(dir, runIdOf(run.stdout));
    expect(toolResults(messages, 'record_thaw')).toHaveLength(1);
    expect(toolResults(messages, 'record_thaw')[0]).not.toContain('"error_code"');
  });

  it('rejected, the thaw never runs and the model reads the rationale', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '2\n1,3\nr\nnot today\n\n', dir, env });
    expect(run.code).toBe(0);
    const messages = await transcript(dir, runIdOf(run.stdout));
    const [result] = toolResults(messages, 'record_thaw');
    expect(JSON.parse(result!)).toMatchObject({ error_code: 'denied', reason: 'not today' });
  });
});
