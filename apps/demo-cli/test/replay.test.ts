/**
 * `turnkit-demo record` and `turnkit-demo replay` (DESIGN §28): a run of the demo saved as a
 * recording file replays through today's agent with no divergence — its storage sub-agent's
 * conversation included, from the demo's event log — and an edited recording prints the diff and
 * exits 1.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir } from './helpers.js';

afterAll(cleanup);

const recordingIn = (dir: string) =>
  join(dir, readdirSync(dir).find((name) => name.endsWith('.recording.json'))!);

describe('turnkit-demo record / replay', () => {
  it('saves the newest run and replays it with no divergence; an edited call prints the diff and exits 1', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: '2\n1,3\na\n\n\n', dir });
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);
    const saved = await runCli(['record'], { input: null, dir });
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(`Saved the recording of run ${runId} (3 turns)`);
    const file = recordingIn(dir);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      format: 'turnkit.recording',
      source: 'events',
      runId,
    });

    const replayed = await runCli(['replay', file], { input: null, dir });
    expect(replayed.stdout).toContain(
      `Replayed run ${runId} (3 turns): today’s agent acts exactly as recorded.`,
    );
    expect(replayed.code).toBe(0);

    const edited = readFileSync(file, 'utf8').replace(/\\"vials\\":1/, '\\"vials\\":\\"one\\"');
    writeFileSync(file, edited);
    const diverged = await runCli(['replay', file], { input: null, dir });
    expect(diverged.code).toBe(1);
    expect(diverged.stdout).toContain(`Replay of run ${runId} (agent ln2-inventory): `);
    expect(diverged.stdout).toMatch(
      /turn 2, step 1 — tool_changed: today's record_thaw refuses the recorded call \(invalid_arguments\)/,
    );
  });

  it('replays a run whose storage sub-agent asked, from the demo’s event log', async () => {
    const dir = tempDir();
    const run = await runCli(['Store 2 new vials of HeLa'], { input: '\nB2-14, B2-15\na\n\n', dir });
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);
    expect((await runCli(['record', runId, 'store.json'], { input: null, dir })).code).toBe(0);
    const recording = JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8'));
    expect(
      recording.turns[0].steps.map((step: { agentPath: string[] }) => step.agentPath.join('/')),
    ).toContain('ln2-inventory/storage');
    const replayed = await runCli(['replay', 'store.json'], { input: null, dir });
    expect(replayed.stdout).toContain('today’s agent acts exactly as recorded');
    expect(replayed.code).toBe(0);
  });

  it('says what was wrong for a missing or unreadable file, or one that is not a recording', async () => {
    const dir = tempDir();
    const usage = await runCli(['replay'], { input: null, dir });
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('Usage: turnkit-demo replay <recording.json>');
    const missing = await runCli(['replay', 'nope.json'], { input: null, dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Cannot read the recording');
    writeFileSync(join(dir, 'other.json'), '{"format":"something"}');
    const other = await runCli(['replay', 'other.json'], { input: null, dir });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('RECORDING_INVALID');
  });
});
