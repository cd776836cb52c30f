/**
 * A run's budget in the terminal (DESIGN §20), with `TURNKIT_BUDGET_STEPS=2`: the status line shows
 * the spend against the limit after each turn; the call past it is asked as an approval ("This run
 * has spent … Allow another …?"); approving extends the budget and the run goes on, rejecting ends
 * it `budget_exceeded` with a clear line; `resume` shows the spend once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

afterAll(cleanup);

describe('turnkit-demo with a budget', () => {
  it('shows the spend, asks before spending more, extends, then stops at budget_exceeded', async () => {
    const dir = tempDir();
    const env = { TURNKIT_BUDGET_STEPS: '2' };
    // Answers, approve the budget (+1 step), approve record_thaw, reject the next budget, no new message.
    const run = await runCli([], { input: '2\n1,3\na\n\na\n\nr\n\n\n', dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Budget: 2 / 2 steps');
    expect(run.stdout).toContain('│ Tool    more budget');
    expect(run.stdout).toContain('│ Reason  This run has spent 2 steps of 2 steps. Allow another 1 step?');
    expect(run.stdout).toContain('Budget: 3 / 3 steps');
    expect(run.stdout).toContain('│ Reason  This run has spent 3 steps of 3 steps. Allow another 2 steps?');
    const runId = runIdOf(run.stdout);
    expect(run.stdout).toContain(
      `Budget exceeded: run ${runId} stopped after spending 3 / 3 steps. A new message asks for more.`,
    );
    // The thaw the extension paid for ran once; the model was not called past the budget.
    const messages = await transcript(dir, runId);
    expect(toolResults(messages, 'record_thaw')).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ role: 'tool' });

    const listed = await runCli(['runs', '--json'], { input: null, dir });
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ runId, status: 'budget_exceeded' });

    const resumed = await runCli(['resume', runId], { input: '\n', dir, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      `Budget exceeded: run ${runId} stopped after spending 3 / 3 steps. A new message asks for more.`,
    );
    expect(resumed.stdout.match(/3 \/ 3 steps/g)).toHaveLength(1);
  });

  it('shows the spend once when a run is resumed, in both languages', async () => {
    const dir = tempDir();
    const first = await runCli([], { input: null, dir });
    expect(first.stdout.split('\n')).toContain('Budget: 2 / 30 steps');
    const runId = runIdOf(first.stdout);
    const lines = { en: 'Budget: 2 / 30 steps', 'zh-CN': '预算：2 / 30 步' };
    for (const [lang, line] of Object.entries(lines)) {
      const resumed = await runCli(['resume', runId, '--lang', lang], { input: null, dir });
      expect(resumed.code).toBe(0);
      expect(resumed.stdout.split('\n').filter((shown) => shown === line)).toHaveLength(1);
    }
  });

  it('has no budget with TURNKIT_BUDGET_STEPS=0', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '2\n1,3\na\n\n\n', dir, env: { TURNKIT_BUDGET_STEPS: '0' } });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Budget:');
    expect(run.stdout).toContain('Agent › Done: thawed 1 vial of K562-dTAG');
  });
});
