/**
 * `turnkit-demo stop <runId> [reason]` (DESIGN §20): stops a run saved by another process. A run
 * waiting for an answer has its questions cancelled (each call gets its one result) and rests
 * `aborted`; `resume` continues it; a run at rest is left alone; an unknown run is an error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir, transcript } from './helpers.js';

afterAll(cleanup);

describe('turnkit-demo stop', () => {
  it('cancels what a waiting run asks, rests it aborted, and resume continues it', async () => {
    const dir = tempDir();
    const first = await runCli([], { input: '2\n', dir });
    expect(first.code).toBe(0);
    const runId = runIdOf(first.stdout);

    const stopped = await runCli(['stop', runId, 'wrong', 'vial'], { input: null, dir });
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(
      `Stopped run ${runId}: what it waited for was cancelled; it rests aborted.`,
    );
    const messages = await transcript(dir, runId);
    const cancelled = messages.filter(
      (message) => message.role === 'tool' && (message.content ?? '').includes('question_cancelled'),
    );
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.content).toContain('wrong vial');

    const listed = await runCli(['runs', '--json'], { input: null, dir });
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ runId, status: 'aborted', waitingFor: '' });

    const again = await runCli(['stop', runId], { input: null, dir });
    expect(again.stdout).toContain(`Run ${runId} is not running (aborted): nothing to stop.`);

    const resumed = await runCli(['resume', runId], { input: '\n\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`Resuming run ${runId} (aborted).`);
  });

  it('says what was wrong for an unknown run or a missing id', async () => {
    const dir = tempDir();
    const unknown = await runCli(['stop', 'run_missing'], { input: null, dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('RUN_NOT_FOUND');
    const missing = await runCli(['stop'], { input: null, dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Usage: turnkit-demo stop <runId> [reason]');
  });
});
