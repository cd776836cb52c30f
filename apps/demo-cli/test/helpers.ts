/**
 * Running the built CLI as a child process, with a clean environment and a temporary run folder,
 * and reading what it saved (transcripts, the freezer in the run's context).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { fileStore } from '@turnkit/adapters';
import { type ChatMessage, parseSnapshot } from '@turnkit/core';
import type { Lang } from '../src/i18n.js';
import type { Freezer } from '../src/scenario/freezer.js';
import { createUi, type Ui } from '../src/ui.js';

export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(PACKAGE_DIR, 'dist', 'cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment the tests run the CLI in: no locale, colour, API key or run folder of the machine
 * leaks in, so results do not depend on who runs them.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      /^(LANG|LANGUAGE|LC_\w+|OPENAI_\w+|ANTHROPIC_\w+|TURNKIT_\w+|FORCE_COLOR|NO_COLOR|INIT_CWD|ASK_\w+|COLUMNS)$/.test(
        key,
      )
    )
      continue;
    env[key] = value;
  }
  return { ...env, LANG: 'C', NO_COLOR: '1', ...extra };
}

/** A fresh folder for `.turnkit/runs`, removed by `cleanup()`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'turnkit-demo-test-'));
  created.push(dir);
  return dir;
}
const created: string[] = [];
export function cleanup(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs `node dist/cli.js …args`. `input` is piped to stdin and then closed; `null` runs with stdin
 * on /dev/null (closed from the start).
 */
export function runCli(
  args: string[],
  options: { input: string | null; dir: string; env?: NodeJS.ProcessEnv },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.dir,
      env: cleanEnv({ TURNKIT_DIR: join(options.dir, 'runs'), ...options.env }),
      stdio: [options.input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    outputOf(child).then(resolve, reject);
    if (options.input !== null) child.stdin?.end(options.input);
  });
}

/**
 * What a child process printed, and its exit code, once it closed; `onStdout` sees the whole output
 * so far after each chunk.
 */
export function outputOf(child: ChildProcess, onStdout?: (stdout: string) => void): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      onStdout?.(stdout);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One step of {@link runCliScripted}: once the output contains `waitFor`, `write` goes to stdin. */
export interface ScriptStep {
  waitFor: string;
  write: string;
}

/**
 * Runs the CLI with stdin kept open: each step's text is written once the output (since the
 * previous step) shows its `waitFor`; stdin closes after the last step. For prompts that must
 * wait (a countdown running out) rather than read lines given all at once.
 */
export function runCliScripted(
  args: string[],
  options: { dir: string; steps: ScriptStep[]; env?: NodeJS.ProcessEnv },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.dir,
      env: cleanEnv({ TURNKIT_DIR: join(options.dir, 'runs'), ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const steps = [...options.steps];
    let from = 0;
    const flush = (stdout: string) => {
      while (steps.length > 0) {
        const at = stdout.indexOf(steps[0]!.waitFor, from);
        if (at === -1) return;
        const step = steps.shift()!;
        from = at + step.waitFor.length;
        child.stdin.write(step.write);
        if (steps.length === 0) child.stdin.end();
      }
    };
    outputOf(child, flush).then(resolve, reject);
    if (steps.length === 0) child.stdin.end();
  });
}

/** The freezer of a run as it was last saved (the run's application context). */
export async function freezerOf(dir: string, runId: string): Promise<Freezer> {
  const stored = await fileStore(join(dir, 'runs')).get(runId);
  if (!stored) throw new Error(`No run ${runId} is saved in ${dir}/runs`);
  // superjson keeps the plain JSON in `json` (Dates and the like are noted beside it).
  return (parseSnapshot(stored.snapshot).context as unknown as { json: Freezer }).json;
}

/** A UI writing into a stream nobody reads, with colours off, for drawing cards in unit tests. */
export function uiFor(lang: Lang): Ui {
  const stream = new PassThrough();
  return createUi({
    lang,
    out: stream as unknown as NodeJS.WriteStream,
    input: stream as unknown as NodeJS.ReadStream,
    env: {},
  });
}

/** The run id the CLI printed in its resume hint. */
export function runIdOf(output: string): string {
  const match = /turnkit-demo resume (run_[\w-]+)/.exec(output);
  if (!match) throw new Error(`No run id in the output:\n${output}`);
  return match[1]!;
}

/** The saved transcript of a run, read through the `fileStore` the CLI writes with. */
export async function transcript(dir: string, runId: string): Promise<ChatMessage[]> {
  const stored = await fileStore(join(dir, 'runs')).get(runId);
  if (!stored) throw new Error(`No run ${runId} is saved in ${dir}/runs`);
  return parseSnapshot(stored.snapshot).state.context.messages;
}

/** The tool results of a transcript, by tool name (in order). */
export function toolResults(messages: ChatMessage[], toolName: string): string[] {
  const ids = new Set(
    messages.flatMap((message) =>
      message.role === 'assistant'
        ? (message.tool_calls ?? []).filter((call) => call.function.name === toolName).map((call) => call.id)
        : [],
    ),
  );
  return messages.flatMap((message) =>
    message.role === 'tool' && ids.has(message.tool_call_id) ? [message.content] : [],
  );
}
