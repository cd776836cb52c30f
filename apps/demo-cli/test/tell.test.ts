/**
 * `turnkit-demo tell <runId> <message>` (DESIGN §30): late input from another terminal. A run that
 * waits for an answer keeps the message until it is answered; the process that answers adds it to
 * the conversation once (and says so); a run at rest plays it at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, transcript } from './helpers.js';

afterAll(cleanup);

const LATE = 'also note the freezer temperature';

describe('turnkit-demo tell', () => {
  it('queues a message for a waiting run; the answering process adds it once', async () => {
    const dir = tempDir();
    const first = await runCli([], { input: '2\n', dir });
    expect(first.code).toBe(0);
    const runId = runIdOf(first.stdout);

    const told = await runCli(['tell', runId, ...LATE.split(' ')], { input: null, dir });
    expect(told.code).toBe(0);
    expect(told.stdout).toContain(`Queued for run ${runId}: it waits for an answer`);
    expect((await transcript(dir, runId)).filter((message) => message.content === LATE)).toHaveLength(0);

    const resumed = await runCli(['resume', runId], { input: '\n\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('A queued message was added to the conversation.');
    expect((await transcript(dir, runId)).filter((message) => message.content === LATE)).toHaveLength(1);
  });

  it('says what was wrong for a missing message or an unknown run', async () => {
    const dir = tempDir();
    const missing = await runCli(['tell', 'run_x'], { input: null, dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Usage: turnkit-demo tell <runId> <message>');
    const unknown = await runCli(['tell', 'run_missing', 'hello'], { input: null, dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('RUN_NOT_FOUND');
  });
});
