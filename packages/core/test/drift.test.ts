/**
 * Tool drift (DESIGN §21): a run paused on an approval of record_thaw resumes under a new version of
 * the app. A tool that is gone, or whose new schema refuses the paused call's input, is not run (the
 * call gets `tool_changed` and the event says so); a changed schema the input still fits runs. In
 * this process with a fresh agent object, and in another Node process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AskResponse,
  approve,
  defineAgent,
  defineTool,
  provideInput,
  reject,
  runTurn,
  type TurnResult,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { type DriftVariant, driftAgent } from './fixtures/drift-agent.js';
import { expectOneResultPerCall, toolResults } from './helpers.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const workDirectory = mkdtempSync(join(tmpdir(), 'turnkit-drift-'));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

async function pausedOnThaw(): Promise<string> {
  const paused = await runTurn(driftAgent('same'), { input: 'thaw one K562' });
  expect(paused.pendingQuestion).toMatchObject({ kind: 'approval', toolName: 'record_thaw' });
  return paused.snapshot;
}

const changedEvents = (result: TurnResult) => result.events.filter((event) => event.type === 'tool_changed');
const resultOfThaw = (result: TurnResult) => JSON.parse(toolResults(result).call_thaw ?? '{}');

describe('tool drift between a pause and its resume', () => {
  it('gives a renamed (removed) tool’s approved call tool_changed, with the event, and runs nothing', async () => {
    const log: string[] = [];
    process.env.TURNKIT_DRIFT_LOG = join(workDirectory, 'renamed.log');
    writeFileSync(process.env.TURNKIT_DRIFT_LOG, '');
    const result = await approve(driftAgent('renamed'), await pausedOnThaw());
    log.push(...readFileSync(process.env.TURNKIT_DRIFT_LOG, 'utf8').split('\n').filter(Boolean));
    delete process.env.TURNKIT_DRIFT_LOG;
    expect(result.status).toBe('completed');
    expect(log).toEqual([]);
    const thaw = resultOfThaw(result);
    expect(thaw).toMatchObject({ ok: false, error_code: 'tool_changed' });
    expect(thaw.message).toContain('record_thaw was removed');
    expect(thaw.message).toContain('thaw_vials');
    expect(changedEvents(result)).toMatchObject([
      { type: 'tool_changed', toolCallId: 'call_thaw', toolName: 'record_thaw', reason: 'removed' },
    ]);
    expect(result.events.some((event) => event.type === 'tool_started')).toBe(false);
    expectOneResultPerCall(result);
  });

  it('gives a tightened schema’s call tool_changed naming what the input lacks', async () => {
    const result = await approve(driftAgent('tightened'), await pausedOnThaw());
    expect(result.status).toBe('completed');
    const thaw = resultOfThaw(result);
    expect(thaw).toMatchObject({ ok: false, error_code: 'tool_changed' });
    expect(thaw.message).toContain('no longer fits');
    expect(thaw.message).toContain('- box:');
    expect(changedEvents(result)).toMatchObject([{ reason: 'schema_changed', toolName: 'record_thaw' }]);
    expect(result.output).toContain('tool_changed');
    expectOneResultPerCall(result);
  });

  it('runs a loosened schema’s call (its input still fits), once', async () => {
    const result = await approve(driftAgent('loosened'), await pausedOnThaw());
    expect(result.status).toBe('completed');
    expect(resultOfThaw(result)).toEqual({ recorded: true, cellLine: 'K562', vials: 1 });
    expect(changedEvents(result)).toEqual([]);
    expect(result.events.filter((event) => event.type === 'tool_started')).toHaveLength(1);
  });

  it('runs a tightened tool when the human’s edited input fits the new schema', async () => {
    const edited = { cellLine: 'K562', vials: 1, box: 'C1-03' };
    const result = await approve(driftAgent('tightened'), await pausedOnThaw(), { editedInput: edited });
    expect(resultOfThaw(result)).toMatchObject({ recorded: true, box: 'C1-03' });
    expect(changedEvents(result)).toEqual([]);
  });

  it('still lets the human reject a call whose tool is gone (nothing to run)', async () => {
    const result = await reject(driftAgent('renamed'), await pausedOnThaw(), { rationale: 'no' });
    expect(resultOfThaw(result)).toMatchObject({ error_code: 'rejected_by_user' });
    expect(changedEvents(result)).toEqual([]);
    expectOneResultPerCall(result);
  });
});

describe('tool drift across processes', () => {
  const child = fileURLToPath(new URL('./fixtures/drift-child.ts', import.meta.url));
  const run = promisify(execFile);

  async function resumeIn(variant: DriftVariant, snapshot: string, logFile: string) {
    const file = join(workDirectory, `${variant}.snapshot`);
    writeFileSync(file, snapshot);
    writeFileSync(logFile, '');
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', child, variant, file, JSON.stringify({ type: 'approve' })],
      { cwd: packageRoot, timeout: 20_000, env: { ...process.env, TURNKIT_DRIFT_LOG: logFile } },
    );
    return JSON.parse(stdout) as { pid: number; result: TurnResult };
  }

  it.each([
    ['renamed', 'tool_changed', 0],
    ['tightened', 'tool_changed', 0],
    ['loosened', undefined, 1],
  ] as const)(
    'resumes a run paused by the old code in a process running the %s tool',
    async (variant, code, runs) => {
      const logFile = join(workDirectory, `child-${variant}.log`);
      const { pid, result } = await resumeIn(variant, await pausedOnThaw(), logFile);
      expect(pid).not.toBe(process.pid);
      expect(result.status).toBe('completed');
      expect(resultOfThaw(result).error_code).toBe(code);
      expect(changedEvents(result)).toHaveLength(code ? 1 : 0);
      const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(runs);
      if (runs) expect(lines[0]).toBe(`${variant} ${pid} {"cellLine":"K562","vials":1}`);
      expectOneResultPerCall(result);
    },
    30_000,
  );
});

describe('tool drift of a call that asked (ctx.ask)', () => {
  const asking = (options: { withResume: boolean; input: z.ZodType<{ cellLine: string }> }) =>
    defineAgent({
      name: 'asking',
      instructions: 'You thaw vials.',
      model: scriptedModel([
        { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
        (request) => `done: ${request.messages.at(-1)?.content}`,
      ]),
      tools: [
        defineTool({
          name: 'record_thaw',
          description: 'Record a thaw; asks which box',
          input: options.input,
          execute: (_input, ctx) =>
            ctx.ask({ input: { message: 'Which box?', schema: z.object({ box: z.string() }) } }),
          ...(options.withResume
            ? {
                resume: (input: { cellLine: string }, response: AskResponse) => ({
                  ...input,
                  response: response.kind,
                }),
              }
            : {}),
        }),
      ],
    });

  it('gives tool_changed when the tool lost its resume, and runs resume when only the schema loosened', async () => {
    const before = asking({ withResume: true, input: z.object({ cellLine: z.string() }) });
    const paused = await runTurn(before, { input: 'thaw' });
    expect(paused.pendingQuestion?.kind).toBe('input');
    const value = { value: { box: 'B2' } };
    const lost = await provideInput(
      asking({ withResume: false, input: z.object({ cellLine: z.string() }) }),
      paused.snapshot,
      value,
    );
    expect(resultOfThaw(lost)).toMatchObject({ error_code: 'tool_changed' });
    expect(changedEvents(lost)).toMatchObject([{ reason: 'removed' }]);
    expectOneResultPerCall(lost);
    const loosened = await provideInput(
      asking({ withResume: true, input: z.object({ cellLine: z.string(), note: z.string().optional() }) }),
      paused.snapshot,
      value,
    );
    expect(resultOfThaw(loosened)).toEqual({ cellLine: 'K562', response: 'input' });
    const tightened = await provideInput(
      asking({ withResume: true, input: z.object({ cellLine: z.enum(['HeLa']) }) }),
      paused.snapshot,
      value,
    );
    expect(changedEvents(tightened)).toMatchObject([{ reason: 'schema_changed' }]);
  });
});
