/**
 * `turnkit-demo inbox`: the pending asks of every saved run, oldest first (the file store's inbox
 * index), as a numbered list or JSON lines; picking one answers it as `resume` would, and it leaves
 * the inbox. Nothing waiting says so.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, runCli, runIdOf, tempDir } from './helpers.js';

afterAll(cleanup);

describe('turnkit-demo inbox', () => {
  it('lists the asks of all saved runs oldest first, and answers the one picked', async () => {
    const dir = tempDir();
    const empty = await runCli(['inbox'], { input: null, dir });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('waits for an answer.');

    // Two runs left waiting at their question (end of input mid-question).
    const first = runIdOf((await runCli([], { input: '2\n', dir })).stdout);
    const second = runIdOf((await runCli([], { input: '2\n', dir })).stdout);

    const json = await runCli(['inbox', '--json'], { input: null, dir });
    expect(json.code).toBe(0);
    const items = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { runId: string; kind: string; summary: string });
    expect(items.map((item) => [item.runId, item.kind])).toEqual([
      [first, 'question'],
      [second, 'question'],
    ]);

    const listed = await runCli(['inbox'], { input: null, dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('2 ask(s) waiting, oldest first:');
    expect(listed.stdout).toMatch(new RegExp(`1\\. question: .*run ${first}`));
    expect(listed.stdout).toMatch(new RegExp(`2\\. question: .*run ${second}`));

    // Pick the first; it is answered as `resume` would, and only the second is left.
    const answered = await runCli(['inbox'], { input: '1\n3\n2\na\n\n\n', dir });
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain(`Resuming run ${first} (needs_input).`);
    const after = await runCli(['inbox', '--json'], { input: null, dir });
    expect(
      after.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { runId: string }).runId),
    ).toEqual([second]);
  });
});
