/**
 * History and forks over each store (DESIGN §21), run by `describeStoreContract`: every `putParts`
 * write is a point (`listPoints`, `getAt` cuts the logs at that version), a rewrite drops the points
 * before it, and sessions fork a run at a version and at an interaction, answer the fork
 * differently and leave the source as it was.
 */
import {
  askUserQuestion,
  createSessions,
  defineAgent,
  defineTool,
  type SnapshotStore,
  type StateError,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { freshRunId, partsHead, type StoreFixture } from './helpers/store-fixtures.js';

const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };

/** Asks, records the answer with a tool (keeping its idempotency key), then says what was chosen. */
function forkAgent(keys: string[]) {
  const record = defineTool({
    name: 'record_choice',
    description: 'Record the chosen method',
    input: z.object({ method: z.string() }),
    execute: async ({ method }, ctx) => {
      keys.push(`${method}@${ctx.idempotencyKey}`);
      return { recorded: method };
    },
  });
  const lastAnswer = (messages: { content?: unknown }[]) =>
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
  });
}

/** Registers the history tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeForksContract(fixture: () => StoreFixture): void {
  describe('history and forks', () => {
    let store: SnapshotStore;
    beforeAll(() => {
      store = fixture().store;
    });

    it('keeps every putParts write as a point, its logs cut at that version, until a rewrite', async () => {
      const runId = freshRunId('points');
      const head = partsHead('p');
      await store.putParts!(
        runId,
        { mode: 'rewrite', head, messages: '1', resolved: '' },
        { expectedVersion: null },
      );
      await store.putParts!(
        runId,
        { mode: 'append', head, messages: '2', resolved: '"a"' },
        { expectedVersion: 1 },
      );
      await store.putParts!(
        runId,
        { mode: 'append', head, messages: '', resolved: '' },
        { expectedVersion: 2 },
      );
      await store.putParts!(
        runId,
        { mode: 'append', head, messages: '3,4', resolved: '' },
        { expectedVersion: 3 },
      );
      const points = await store.listPoints!(runId);
      expect(points.map((point) => point.version)).toEqual([1, 2, 3, 4]);
      for (const point of points) {
        expect(point.head).toBe(head);
        expect(Number.isNaN(Date.parse(point.at))).toBe(false);
      }
      expect(await store.getAt!(runId, 1)).toEqual({ head, messages: '1', resolved: '' });
      expect(await store.getAt!(runId, 2)).toEqual({ head, messages: '1,2', resolved: '"a"' });
      expect(await store.getAt!(runId, 3)).toEqual({ head, messages: '1,2', resolved: '"a"' });
      expect(await store.getAt!(runId, 4)).toEqual({ head, messages: '1,2,3,4', resolved: '"a"' });
      expect(await store.getAt!(runId, 5)).toBeNull();
      await store.putParts!(
        runId,
        { mode: 'rewrite', head, messages: '9', resolved: '' },
        { expectedVersion: 4 },
      );
      expect((await store.listPoints!(runId)).map((point) => point.version)).toEqual([5]);
      expect(await store.getAt!(runId, 2)).toBeNull();
      expect(await store.getAt!(runId, 5)).toEqual({ head, messages: '9', resolved: '' });
      expect(await store.listPoints!(freshRunId('none'))).toEqual([]);
      expect(await store.getAt!(freshRunId('none'), 1)).toBeNull();
    });

    it('forks a run at an interaction and at a version; the fork is answered differently, the source stays as it was', async () => {
      const keys: string[] = [];
      const sessions = createSessions({ agent: forkAgent(keys), store });
      const paused = await sessions.start({ input: 'go', runId: freshRunId('source') });
      expect(paused.status).toBe('needs_input');
      const interactionId = paused.pendingQuestion!.id;
      const done = await sessions.answer(paused.runId, { answers: 'JWT' });
      expect(done.status).toBe('completed');
      const history = await sessions.history(paused.runId);
      expect(history.find((point) => point.version === paused.version)).toMatchObject({
        reason: 'paused',
        interactionId,
      });
      expect(history.at(-1)).toMatchObject({ version: done.version, reason: 'completed' });

      const fork = await sessions.fork(paused.runId, { at: { interactionId }, runId: freshRunId('fork') });
      expect(fork.status).toBe('needs_input');
      expect(fork.forkedFrom).toEqual({ runId: paused.runId, version: paused.version });
      const other = await sessions.answer(fork.runId, { answers: 'OAuth' });
      expect(other.output).toContain('OAuth');
      expect((await sessions.get(fork.runId)).forkedFrom).toEqual({
        runId: paused.runId,
        version: paused.version,
      });
      expect(keys).toEqual([`JWT@${paused.runId}:call_1_0`, `OAuth@${fork.runId}:call_1_0`]);
      const source = await sessions.get(paused.runId);
      expect(source.version).toBe(done.version);
      expect(source.snapshot).toBe(done.snapshot);

      const atVersion = await sessions.fork(paused.runId, { at: paused.version, runId: freshRunId('fork') });
      expect(atVersion.status).toBe('needs_input');
      const error = await sessions.fork(paused.runId, { at: 999 }).catch((caught: unknown) => caught);
      expect((error as StateError).code).toBe('POINT_NOT_FOUND');
    });
  });
}

/**
 * For a store made with `keepHistory: 2`: four writes keep the points of the last two versions,
 * each still read whole at its version; older ones are gone.
 */
export async function expectKeepsLatestTwo(store: SnapshotStore): Promise<void> {
  const runId = freshRunId('keep');
  const head = partsHead('k');
  let version: number | null = null;
  for (const [index, messages] of ['1', '2', '3', '4'].entries()) {
    const mode = index === 0 ? 'rewrite' : 'append';
    ({ version } = await store.putParts!(
      runId,
      { mode, head, messages, resolved: '' },
      { expectedVersion: version },
    ));
  }
  expect((await store.listPoints!(runId)).map((point) => point.version)).toEqual([3, 4]);
  expect(await store.getAt!(runId, 2)).toBeNull();
  expect(await store.getAt!(runId, 3)).toEqual({ head, messages: '1,2,3', resolved: '' });
  expect((await store.getParts!(runId)) as { messages: string }).toMatchObject({ messages: '1,2,3,4' });
}
