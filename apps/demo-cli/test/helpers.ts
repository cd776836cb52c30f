/** Running the built CLI as a child process, with a clean environment and a temporary run folder. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChatMessage, parseSnapshot } from '@turnkit/core';

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
      /^(LANG|LANGUAGE|LC_\w+|OPENAI_\w+|TURNKIT_\w+|FORCE_COLOR|NO_COLOR|INIT_CWD|ASK_\w+|COLUMNS)$/.test(
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
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (options.input !== null) child.stdin?.end(options.input);
  });
}

/** The run id the CLI printed in its resume hint. */
export function runIdOf(output: string): string {
  const match = /turnkit-demo resume (run_[\w-]+)/.exec(output);
  if (!match) throw new Error(`No run id in the output:\n${output}`);
  return match[1]!;
}

/** The saved transcript of a run, read from the file `fileStore` wrote. */
export function transcript(dir: string, runId: string): ChatMessage[] {
  const file = JSON.parse(readFileSync(join(dir, 'runs', `${runId}.json`), 'utf8')) as { snapshot: string };
  return parseSnapshot(file.snapshot).state.context.messages;
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
