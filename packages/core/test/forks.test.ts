/** Forks and time travel (DESIGN §21): history points, forks at a version or an interaction. */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  askUserQuestion,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
  parseSnapshot,
  type SnapshotStore,
  StateError,
  TurnkitError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };

/** Asks, then records the answer with a tool (keeping its idempotency key), then says what was chosen. */
function forkAgent(keys: string[], secret?: string) {
  const record = defineTool({
    name: 'record_choice',
    description: 'Record the chosen method',
    input: z.object({ method: z.string() }),
    execute: async ({ method }, ctx) => {
      keys.push(`${method}@${ctx.idempotencyKey}`);
      return { recorded: method };
    },
  });
  const lastAnswer = (messages: { role: string; content?: unknown }[]) =>
    String(messages.at(-1)?.content ?? '').includes('OAuth') ? 'OAuth' : 'JWT';
  return defineAgent({
    name: 'auth',
    instructions: 'Pick an auth method.',
    model: scriptedModel([
      { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [authQuestion] } }] },
      (request) => ({
        toolCalls: [{ name: 'record_choice', arguments: { method: lastAnswer(request.messages) } }],
      }),
      (request) => `Chose ${String(request.messages.at(-1)?.content)}`,
    ]),
    tools: [record, askUserQuestion()],
    ...(secret ? { snapshot: { secret } } : {}),
  });
}

const pendingId = (result: { pendingQuestion?: { id: string } | null }) => result.pendingQuestion!.id;

/** The fork scenario on any store that keeps points. */
export async function forkScenario(store: SnapshotStore) {
  const keys: string[] = [];
  const sessions = createSessions({ agent: forkAgent(keys), store });
  const paused = await sessions.start('go');
  expect(paused.status).toBe('needs_input');
  const interactionId = pendingId(paused);
  const done = await sessions.answer(paused.runId, { answers: 'JWT' });
  expect(done.status).toBe('completed');
  const history = await sessions.history(paused.runId);
  expect(history.map((point) => point.version)).toEqual(
    [...Array(done.version).keys()].map((index) => index + 1),
  );
  expect(history[0]!.reason).toBe('start');
  const pause = history.find((point) => point.version === paused.version)!;
  expect(pause).toMatchObject({ reason: 'paused', interactionId });
  expect(history[paused.version]!.reason).toBe('answered');
  expect(history.at(-1)!.reason).toBe('completed');
  for (const point of history) expect(Number.isNaN(Date.parse(point.at))).toBe(false);

  // At the interaction: the state just before it was answered; answer it differently.
  const fork = await sessions.fork(paused.runId, { at: { interactionId } });
  expect(fork.runId).not.toBe(paused.runId);
  expect(fork.status).toBe('needs_input');
  expect(fork.forkedFrom).toEqual({ runId: paused.runId, version: paused.version });
  expect(pendingId(fork)).toBe(interactionId);
  const other = await sessions.answer(fork.runId, { answers: 'OAuth' });
  expect(other.status).toBe('completed');
  expect(other.output).toContain('OAuth');
  expect((await sessions.get(fork.runId)).forkedFrom).toEqual({
    runId: paused.runId,
    version: paused.version,
  });
  // Fresh keys: the fork's tool call ran under its own run id.
  expect(keys).toEqual([`JWT@${paused.runId}:call_1_0`, `OAuth@${fork.runId}:call_1_0`]);

  // The source is unchanged.
  const source = await sessions.get(paused.runId);
  expect(source.version).toBe(done.version);
  expect(source.snapshot).toBe(done.snapshot);
  expect(source.output).toContain('JWT');
  expect(source.forkedFrom).toBeUndefined();

  // At a version: the first pause again, then a version mid-turn, played on at once.
  const atVersion = await sessions.fork(paused.runId, { at: paused.version });
  expect(atVersion.status).toBe('needs_input');
  expect(atVersion.forkedFrom).toEqual({ runId: paused.runId, version: paused.version });
  const midTurn = await sessions.fork(paused.runId, { at: paused.version + 1 });
  expect(midTurn.status).toBe('completed');
  expect(midTurn.output).toContain('JWT');
  expect(keys.at(-1)).toBe(`JWT@${midTurn.runId}:call_1_0`);

  // Unknown points.
  const unknown = await sessions.fork(paused.runId, { at: 999 }).catch((error: unknown) => error);
  expect(unknown).toBeInstanceOf(StateError);
  expect((unknown as StateError).code).toBe('POINT_NOT_FOUND');
  expect((unknown as Error).message).toMatch(/version 999.*sessions\.history/);
  const noInteraction = await sessions
    .fork(paused.runId, { at: { interactionId: 'nope' } })
    .catch((error: unknown) => error);
  expect((noInteraction as StateError).code).toBe('POINT_NOT_FOUND');
  const noRun = await sessions.fork('run_missing', { at: 1 }).catch((error: unknown) => error);
  expect((noRun as StateError).code).toBe('RUN_NOT_FOUND');
}

describe('sessions.history and sessions.fork', () => {
  it('forks a run at an interaction and at a version, answers the fork differently, and leaves the source as it was', async () => {
    await forkScenario(memoryStore());
  });

  it('forks a signed run: the fork is signed under its new id and records forkedFrom in its snapshot', async () => {
    const secret = 'fork-test-secret-that-is-at-least-32-chars';
    const store = memoryStore();
    const sessions = createSessions({ agent: forkAgent([], secret), store });
    const paused = await sessions.start('go');
    await sessions.answer(paused.runId, { answers: 'JWT' });
    const fork = await sessions.fork(paused.runId, { at: paused.version });
    const decoded = parseSnapshot(fork.snapshot, { secret });
    expect(decoded.runId).toBe(fork.runId);
    expect(decoded.forkedFrom).toEqual({ runId: paused.runId, version: paused.version });
    expect((await sessions.answer(fork.runId, { answers: 'OAuth' })).output).toContain('OAuth');
  });

  it('keeps the principal of the source: only a caller allowed on it may fork', async () => {
    const sessions = createSessions({ agent: forkAgent([]), store: memoryStore() });
    const paused = await sessions.start('go', { principal: 'alice' });
    const stranger = await sessions
      .fork(paused.runId, { at: paused.version }, { principal: 'mallory' })
      .catch((error: unknown) => error);
    expect((stranger as StateError).code).toBe('RUN_NOT_FOUND');
    const fork = await sessions.fork(paused.runId, { at: paused.version });
    const again = await sessions.get(fork.runId, { principal: 'mallory' }).catch((error: unknown) => error);
    expect((again as StateError).code).toBe('RUN_NOT_FOUND');
    expect((await sessions.get(fork.runId, { principal: 'alice' })).runId).toBe(fork.runId);
  });

  it('keeps only the latest points with keepHistory, none with false', async () => {
    const store = memoryStore({ keepHistory: 2 });
    const sessions = createSessions({ agent: forkAgent([]), store });
    const paused = await sessions.start('go');
    const done = await sessions.answer(paused.runId, { answers: 'JWT' });
    expect((await sessions.history(paused.runId)).map((point) => point.version)).toEqual([
      done.version - 1,
      done.version,
    ]);
    const none = createSessions({ agent: forkAgent([]), store: memoryStore({ keepHistory: false }) });
    const run = await none.start('go');
    expect(await none.history(run.runId)).toEqual([]);
    expect(() => memoryStore({ keepHistory: -1 })).toThrow(/keepHistory/);
  });

  it('says CONFIG_INVALID for a store that keeps no points', async () => {
    const inner = memoryStore();
    const store: SnapshotStore = {
      get: (runId) => inner.get(runId),
      put: (runId, snapshot, opts) => inner.put(runId, snapshot, opts),
      renew: (runId, opts) => inner.renew(runId, opts),
      listExpired: (before, limit) => inner.listExpired(before, limit),
      delete: (runId) => inner.delete(runId),
    };
    const sessions = createSessions({ agent: forkAgent([]), store });
    const paused = await sessions.start('go');
    for (const call of [sessions.history(paused.runId), sessions.fork(paused.runId, { at: 1 })]) {
      const error = await call.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TurnkitError);
      expect((error as TurnkitError).code).toBe('CONFIG_INVALID');
      expect((error as Error).message).toMatch(/listPoints and getAt/);
    }
  });
});
