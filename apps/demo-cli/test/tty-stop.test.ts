/**
 * The stop key in a real terminal (tmux, see `terminal.ts`): Ctrl-C once during a turn stops it
 * gracefully (DESIGN §20): it says so, the turn ends `aborted` and is saved, and `resume`
 * continues it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cleanup, runCli, runIdOf, tempDir } from './helpers.js';
import { hasTmux, inCI, open } from './terminal.js';

afterAll(cleanup);

describe.skipIf(!hasTmux && !inCI)('the stop key in a real terminal (tmux)', () => {
  it('stops the running turn on Ctrl-C: aborted, saved, and resumable', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI}`, dir);
    // The scripted model thinks for 350 ms in a terminal: the turn is running.
    await terminal.waitFor('Run run_');
    terminal.keys('C-c');
    await terminal.waitFor(
      'Stopping the turn (a tool already running finishes first)… Ctrl-C again quits at once.',
    );
    const end = await terminal.waitFor('EXIT=130');
    const runId = runIdOf(end);
    expect(end).toContain(`Stopped. Run ${runId} is saved; resuming retries the interrupted turn.`);

    const listed = await runCli(['runs', '--json'], { input: null, dir });
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ runId, status: 'aborted' });
    const resumed = await runCli(['resume', runId], { input: '2\n1,3\na\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Agent › Done: thawed 1 vial of K562-dTAG');
  });
});
