/**
 * The arrow-key prompts in a real terminal: the CLI runs inside a detached tmux session (its own
 * server and socket, no user config, 100×50), keys are sent with `send-keys` and the screen is read
 * with `capture-pane`. Skipped, with a notice, only when tmux is missing outside CI; in CI a
 * missing tmux fails the run (install it with `apt-get install -y tmux`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const inCI = Boolean(process.env.CI);
if (!hasTmux && !inCI) {
  console.warn(
    '[demo-cli] tmux is not installed: skipping the real-terminal tests (apt-get install -y tmux).',
  );
}

let sessions = 0;

class Terminal {
  private readonly socket: string;

  constructor(command: string, cwd: string) {
    // A server of its own, with its socket in the test's temp folder: nothing is left behind in /tmp/tmux-*.
    this.socket = join(cwd, `tmux-${++sessions}.sock`);
    // Colours stay on (as for a person); NO_COLOR is for the piped tests.
    const env = cleanEnv({ TURNKIT_DIR: join(cwd, 'runs') });
    delete env.NO_COLOR;
    this.tmux(
      [
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'main',
        '-x',
        '100',
        '-y',
        '50',
        '-c',
        cwd,
        `${command}; echo EXIT=$?; sleep 600`,
      ],
      env,
    );
  }

  private tmux(args: string[], env: NodeJS.ProcessEnv = process.env): string {
    if (!hasTmux)
      throw new Error('tmux is not installed, and CI must run these tests: apt-get install -y tmux');
    const result = spawnSync('tmux', ['-S', this.socket, '-u', ...args], { env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  }

  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...keys]);
  }

  type(text: string): void {
    this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** The whole screen and scrollback, wrapped lines joined. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-1000', '-t', 'main']);
  }

  async waitFor(expected: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (screen.includes(expected)) return screen;
      if (Date.now() > deadline)
        throw new Error(`Timed out waiting for ${JSON.stringify(expected)}. Screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
  }
}

const terminals: Terminal[] = [];
function open(command: string, cwd: string): Terminal {
  const terminal = new Terminal(command, cwd);
  terminals.push(terminal);
  return terminal;
}
afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});
afterAll(cleanup);

describe.skipIf(!hasTmux && !inCI)('in a real terminal (tmux)', () => {
  it('answers with arrows, space and enter: a single-select, a multi-select, then an approval', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI}`, dir);
    await terminal.waitFor('❯ (•) 1. K562 (Recommended)');
    terminal.keys('Down', 'Enter');
    await terminal.waitFor('✔ Cell line › K562-dTAG');

    await terminal.waitFor('╭─ Follow-ups ');
    terminal.keys('Space', 'Down', 'Down', 'Space');
    const form = await terminal.waitFor('❯ [x] 3. Notify lab manager');
    expect(form).toContain('│   [x] 1. Mycoplasma test');
    expect(form).toContain('│   [ ] 2. Viability count');
    expect(form).toContain('│   [ ] 0. Other (custom input):');
    expect(form).toContain('space toggle · enter confirm');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Follow-ups › Mycoplasma test, Notify lab manager');

    const approval = await terminal.waitFor('enter: Approve');
    expect(approval).toContain('│ Tool    record_thaw');
    expect(approval).toContain('│ ❯ (•) Approve');
    terminal.keys('Enter');
    await terminal.waitFor('Agent › Done: thawed 1 vial of K562-dTAG from box 3 (B1), 1 left.');
    await terminal.waitFor('You ›');
    terminal.keys('Enter');
    const end = await terminal.waitFor('EXIT=0');

    expect(toolResults(transcript(dir, runIdOf(end)), 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-dTAG","Follow-ups":"Mycoplasma test, Notify lab manager"}}',
    ]);
  });

  it('types Other and a note on the inline text rows of the same panel (ask)', async () => {
    const dir = tempDir();
    const questions = {
      questions: [
        {
          question: 'Which language should the CLI use?',
          header: 'Language',
          options: [
            { label: 'TypeScript (Recommended)', description: 'Same as the SDK' },
            { label: 'Go', description: 'One static binary' },
          ],
          multiSelect: false,
        },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    await terminal.waitFor('❯ (•) 1. TypeScript (Recommended)');
    terminal.keys('0');
    terminal.type('Rust');
    terminal.keys('Down');
    terminal.type('for the CLI');
    const form = await terminal.waitFor('Note (optional): for the CLI');
    expect(form).toContain('│   (•) 0. Other (custom input): Rust');
    terminal.keys('Enter');
    const end = await terminal.waitFor('EXIT=0');
    expect(end).toContain('✔ Language › “Rust” (for the CLI)');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe(
      '{"answers":{"Language":"Other (custom: Rust) (note: for the CLI)"}}\n',
    );
  });

  it('quits with Esc mid-question, losing nothing: another process resumes the run', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} --lang zh-CN`, dir);
    await terminal.waitFor('❯ (•) 1. K562（推荐）');
    terminal.keys('Escape');
    const end = await terminal.waitFor('EXIT=0');
    expect(end).toContain('提问已取消。没有任何丢失');
    const runId = runIdOf(end);

    const resumed = await runCli(['resume', runId], { input: '2\n3\na\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(toolResults(transcript(dir, runId), 'AskUserQuestion')).toEqual([
      '{"answers":{"细胞系":"K562-dTAG","后续任务":"通知实验室管理员"}}',
    ]);
  });
});
