/**
 * A real terminal for the arrow-key tests: the CLI runs inside a detached tmux session (its own
 * server and socket, no user config, 100×50), keys are sent with `send-keys` and the screen is read
 * with `capture-pane`. Without tmux, the tests are skipped with a notice outside CI; in CI a
 * missing tmux fails the run (install it with `apt-get install -y tmux`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { cleanEnv, runIdOf, toolResults, transcript } from './helpers.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
export const inCI = Boolean(process.env.CI);
if (!hasTmux && !inCI) {
  console.warn(
    '[demo-cli] tmux is not installed: skipping the real-terminal tests (apt-get install -y tmux).',
  );
}

let sessions = 0;

/** One tmux session running a command. */
export class Terminal {
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

  /** Only what is on screen now (a clear pushes the screen into the scrollback). */
  visible(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-t', 'main']);
  }

  /** The pane's title, as an OSC 0/2 sequence sets it. */
  title(): string {
    return this.tmux(['display-message', '-p', '-t', 'main', '#{pane_title}']).trim();
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
/** Opens a terminal running `command` in `cwd`; it is closed after the test. */
export function open(command: string, cwd: string): Terminal {
  const terminal = new Terminal(command, cwd);
  terminals.push(terminal);
  return terminal;
}
afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

/**
 * Approves the demo's thaw in `terminal`, leaves with an empty message, and returns the answers its
 * AskUserQuestion calls recorded (read from the run saved in `dir`).
 */
export async function approveAndQuit(terminal: Terminal, dir: string): Promise<string[]> {
  await terminal.waitFor('enter: Approve');
  terminal.keys('Enter');
  const end = await quitAtPrompt(terminal);
  return toolResults(await transcript(dir, runIdOf(end)), 'AskUserQuestion');
}

/**
 * Waits for the follow-up prompt of a finished turn, quits it with an empty line, and returns the
 * screen at `EXIT=0`. It waits for the prompt's hint, not `You ›`: the first user line already
 * shows `You ›`, so an Enter sent on that could arrive while the turn still plays, and be lost.
 */
export async function quitAtPrompt(terminal: Terminal): Promise<string> {
  await terminal.waitFor('press enter on an empty line to quit');
  terminal.keys('Enter');
  return terminal.waitFor('EXIT=0');
}
