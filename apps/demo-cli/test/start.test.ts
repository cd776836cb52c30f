/**
 * `npm run demo </dev/null`: the root script builds and then runs this package's `start` script;
 * with stdin closed, the demo must stop cleanly at its first question, exit 0 and say how to resume.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  type CliRun,
  cleanEnv,
  cleanup,
  outputOf,
  PACKAGE_DIR,
  runIdOf,
  tempDir,
  transcript,
} from './helpers.js';

afterAll(cleanup);

function npmStart(runsDir: string): Promise<CliRun> {
  const child = spawn('npm', ['run', 'start', '--silent'], {
    cwd: PACKAGE_DIR,
    env: cleanEnv({ TURNKIT_DIR: runsDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputOf(child);
}

it('`npm run start` with stdin on /dev/null leaves the question waiting, prints the run id and exits 0', async () => {
  const dir = tempDir();
  const run = await npmStart(join(dir, 'runs'));
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Question left unanswered. Nothing is lost: run run_');
  const runId = runIdOf(run.stdout);
  expect(run.stdout).toContain(`Resume with: turnkit-demo resume ${runId}`);
  expect((await transcript(dir, runId)).at(-1)).toMatchObject({
    role: 'assistant',
    tool_calls: [{ function: { name: 'AskUserQuestion' } }],
  });
});
