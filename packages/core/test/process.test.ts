/**
 * Pause in one process, resume in another: the snapshot string (here a file) is the only thing
 * the two share, which proves that nothing a resume needs lives in memory (DESIGN §2, §4). The
 * other process is a fresh `node` running test/fixtures/child.ts through tsx.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { answerQuestion, parseSnapshot, runTurn, type TurnResult } from '../src/index.js';
import { FIRST_INPUT, FIXTURE_NOW, HEADER, inventoryAgent, LABELS } from './fixtures/inventory-agent.js';
import { teamAgent } from './fixtures/team-agent.js';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const childScript = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url));
const teamChildScript = fileURLToPath(new URL('./fixtures/team-child.ts', import.meta.url));
const workDirectory = mkdtempSync(join(tmpdir(), 'turnkit-process-'));
const agent = inventoryAgent();
const options = { now: FIXTURE_NOW };

afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

/** Runs the child in a new Node process (cwd = the package, where `tsx` resolves) and reads its result. */
async function child(...args: string[]): Promise<{ pid: number; result: TurnResult }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', childScript, ...args], {
    cwd: packageRoot,
    timeout: 20_000,
  });
  return JSON.parse(stdout) as { pid: number; result: TurnResult };
}

/** The transcript of the fixture conversation after the question was answered with `label`. */
function expectAnsweredTranscript(result: TurnResult, label: string, vials: number): void {
  expect(result.status).toBe('completed');
  expect(result.messages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'assistant',
    'tool',
    'assistant',
  ]);
  expect(result.messages[0]).toEqual({ role: 'user', content: FIRST_INPUT });
  expect(result.messages[2]).toEqual({
    role: 'tool',
    tool_call_id: 'call_ask',
    content: `{"answers":{"${HEADER}":"${label}"}}`,
  });
  // Script step 2 read the answer from the transcript and queried that line.
  expect(result.messages[3]).toMatchObject({
    tool_calls: [
      { id: 'call_query', function: { name: 'query_inventory', arguments: `{"cellLine":"${label}"}` } },
    ],
  });
  expect(result.output).toBe(`${vials} vials of ${label} in the freezer.`);
  expect(result.usage.modelCalls).toBe(2);
}

describe('a paused run across processes', () => {
  it('resumes in a separate Node process a run paused in this one', async () => {
    const paused = await runTurn(agent, { input: FIRST_INPUT }, options);
    expect(paused.status).toBe('needs_input');
    const file = join(workDirectory, 'paused-here.txt');
    writeFileSync(file, paused.snapshot);

    const { pid, result } = await child('answer', file, JSON.stringify({ [HEADER]: LABELS[1] }));

    expect(pid).not.toBe(process.pid);
    expect(result.runId).toBe(paused.runId);
    expectAnsweredTranscript(result, LABELS[1], 5);
    expect(parseSnapshot(result.snapshot).turn).toBe(2);
  }, 30_000);

  it('resumes in this process a run paused in a separate Node process', async () => {
    const file = join(workDirectory, 'paused-there.txt');
    const { pid, result: paused } = await child('start', file);
    expect(pid).not.toBe(process.pid);
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({ kind: 'question', toolCallId: 'call_ask' });

    const snapshot = readFileSync(file, 'utf8');
    expect(snapshot).toBe(paused.snapshot);
    const result = await answerQuestion(agent, snapshot, { answers: { [HEADER]: LABELS[0] } }, options);

    expect(result.runId).toBe(paused.runId);
    expectAnsweredTranscript(result, LABELS[0], 3);
  }, 30_000);
});

describe('a paused sub-agent across processes', () => {
  it('routes an answer to a child paused in another process, and the child and parent finish there', async () => {
    const paused = await runTurn(teamAgent(), { input: 'paint the shed' });
    expect(paused.pendingQuestion).toMatchObject({
      agentPath: ['lead', 'researcher'],
      id: 'lead/researcher@delegate:1',
    });
    const file = join(workDirectory, 'team.txt');
    writeFileSync(file, paused.snapshot);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', teamChildScript, file, '"Blue"'], {
      cwd: packageRoot,
      timeout: 20_000,
    });
    const { pid, result } = JSON.parse(stdout) as { pid: number; result: TurnResult };

    expect(pid).not.toBe(process.pid);
    expect(result.status).toBe('completed');
    expect(result.output).toBe(`lead: researcher (pid ${pid}) got {"answers":{"Colour":"Blue"}}`);
  }, 30_000);
});

describe('tools that ask, across processes', () => {
  const asksChild = fileURLToPath(new URL('./fixtures/asks-child.ts', import.meta.url));
  const logFile = join(workDirectory, 'asks.log');

  async function inChild(...args: string[]): Promise<{ pid: number; result: TurnResult }> {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', asksChild, ...args], {
      cwd: packageRoot,
      timeout: 20_000,
      env: { ...process.env, TURNKIT_ASK_LOG: logFile },
    });
    return JSON.parse(stdout) as { pid: number; result: TurnResult };
  }

  const logged = () => readFileSync(logFile, 'utf8').trim().split('\n');

  it.each([
    ['input', { type: 'input', value: { box: 'C1-03' } }, '"box":"C1-03"'],
    ['question', { type: 'answer', answers: 'Handwritten' }, '"selected":["Handwritten"]'],
    ['approval', { type: 'approve', editedInput: { count: 3 } }, '{"purged":3}'],
  ])(
    'pauses a %s in one process and resumes it in another: execute once, resume once',
    async (kind, response, expected) => {
      writeFileSync(logFile, '');
      const file = join(workDirectory, `ask-${kind}.txt`);
      const { pid: first, result: paused } = await inChild('start', kind, file);
      expect(paused.status).toBe('needs_input');
      expect(paused.pendingQuestion?.kind).toBe(kind);
      const { pid: second, result: done } = await inChild('respond', file, JSON.stringify(response));
      expect(new Set([first, second, process.pid]).size).toBe(3);
      expect(done.status).toBe('completed');
      expect(done.messages.find((message) => message.role === 'tool')?.content).toContain(expected);
      const lines = logged();
      expect(lines.filter((line) => line.startsWith('execute '))).toHaveLength(1);
      expect(lines.filter((line) => line.startsWith('resume '))).toHaveLength(1);
      // The same call, in both processes.
      expect(new Set(lines.map((line) => line.split(' ').at(-1))).size).toBe(1);
    },
    40_000,
  );
});
