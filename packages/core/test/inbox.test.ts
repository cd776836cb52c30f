import { describe, expect, it } from 'vitest';
import { createSessions, memoryStore, type SnapshotStore, TurnkitError } from '../src/index.js';
import { ask, makeAgent } from './helpers.js';

const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };
const thaw = { name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

/** Sessions whose model asks a question on the first turn of every run, then finishes. */
function askingSessions(store: SnapshotStore = memoryStore()) {
  return createSessions({ agent: makeAgent([{ toolCalls: [ask([authQuestion])] }, 'done']), store });
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute));

describe('sessions.inbox', () => {
  it('lists the pending asks of every run, oldest first, with a summary, and drops a run once answered', async () => {
    const sessions = askingSessions();
    const first = await sessions.start('a', { now: at(2) });
    const second = await sessions.start('b', { now: at(1) });
    const page = await sessions.inbox();
    expect(page.cursor).toBeNull();
    expect(page.items).toEqual([
      {
        runId: second.runId,
        id: second.pending[0]!.id,
        kind: 'question',
        agentPath: ['inventory'],
        summary: 'Which auth method?',
        askedAt: at(1).toISOString(),
      },
      expect.objectContaining({ runId: first.runId, askedAt: at(2).toISOString() }),
    ]);
    await sessions.answer(second.runId, { answers: 'JWT' });
    expect((await sessions.inbox()).items.map((item) => item.runId)).toEqual([first.runId]);
  });

  it('pages with a cursor until the last page, whose cursor is null', async () => {
    const sessions = askingSessions();
    const runIds: string[] = [];
    for (let minute = 0; minute < 5; minute++)
      runIds.push((await sessions.start('go', { now: at(minute) })).runId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await sessions.inbox({ limit: 2, cursor });
      seen.push(...page.items.map((item) => item.runId));
      cursor = page.cursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual(runIds);
    expect(pages).toBe(3);
  });

  it('filters by kind, by the run principal, and by expiry', async () => {
    const agent = makeAgent([
      (request) => ({
        toolCalls: [request.messages.at(-1)?.content === 'thaw' ? thaw : ask([authQuestion])],
      }),
    ]);
    const sessions = createSessions({ agent, store: memoryStore() });
    const approval = await sessions.start('thaw', { principal: 'ana', now: at(1) });
    const question = await sessions.start('ask', { now: at(2) });
    const kinds = await sessions.inbox({ kind: 'approval' });
    expect(kinds.items).toEqual([
      expect.objectContaining({ runId: approval.runId, kind: 'approval', summary: 'record_thaw approval' }),
    ]);
    expect((await sessions.inbox({ principal: 'ana' })).items.map((item) => item.runId)).toEqual([
      approval.runId,
    ]);
    expect((await sessions.inbox({ principal: null })).items.map((item) => item.runId)).toEqual([
      question.runId,
    ]);
    expect((await sessions.inbox({ visibleTo: 'bo' })).items).toEqual([]);
    expect((await sessions.inbox({ expiringBefore: at(59) })).items).toEqual([]);
  });

  it('refuses a store without listPending, a bad limit and a cursor it never gave, with CONFIG_INVALID', async () => {
    const { listPending: _dropped, ...bare } = memoryStore();
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: unknown) => (error instanceof TurnkitError ? `${error.code}: ${error.message}` : 'other'),
      );
    expect(await codeOf(askingSessions(bare).inbox())).toMatch(/^CONFIG_INVALID: .*listPending/);
    const sessions = askingSessions();
    expect(await codeOf(sessions.inbox({ limit: 0 }))).toMatch(/^CONFIG_INVALID: .*limit/);
    expect(await codeOf(sessions.inbox({ cursor: 'not-a-cursor' }))).toMatch(/^CONFIG_INVALID: .*cursor/);
    expect(await codeOf(sessions.inbox({ expiringBefore: 'soon' }))).toMatch(
      /^CONFIG_INVALID: .*expiringBefore/,
    );
  });
});
