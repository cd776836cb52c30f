/**
 * `GET /interactions` (route `inbox`, DESIGN §20): the pending asks across runs that the caller may
 * see, oldest first, a page at a time; a caller's principal (from `authorize`) sees its own runs, a
 * caller without one only the runs bound to nobody.
 */
import { memoryStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler, type RouteInfo } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

/** A handler whose callers name themselves in `x-user` (none: a guest). */
function inboxHandler(seen: RouteInfo[] = []) {
  let minute = 0;
  return createHandler({
    agent: inventoryAgent(),
    store: memoryStore(),
    // Each call a minute later, so the runs' asks have an order.
    now: () => new Date(Date.UTC(2030, 0, 1, 9, minute++)),
    authorize: (request, route) => {
      seen.push(route);
      const user = request.headers.get('x-user');
      return user ? { principal: user } : true;
    },
  });
}

const as = (user?: string): Record<string, string> => (user ? { 'x-user': user } : {});

describe('GET /interactions', () => {
  it('lists the asks of the caller’s runs only, oldest first; a guest sees the runs of no principal', async () => {
    const seen: RouteInfo[] = [];
    const handler = inboxHandler(seen);
    const ana1 = (await send(handler, 'POST', '/runs', { input: 'a' }, as('ana'))).body;
    const bo = (await send(handler, 'POST', '/runs', { input: 'b' }, as('bo'))).body;
    const guest = (await send(handler, 'POST', '/runs', { input: 'c' })).body;
    const ana2 = (await send(handler, 'POST', '/runs', { input: 'd' }, as('ana'))).body;

    const mine = await send(handler, 'GET', '/interactions', undefined, as('ana'));
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      items: [
        {
          runId: ana1.runId,
          id: ana1.pending[0].id,
          kind: 'question',
          agentPath: ['inventory'],
          summary: 'Which cell lines should I thaw?',
          askedAt: expect.any(String),
        },
        expect.objectContaining({ runId: ana2.runId }),
      ],
      cursor: null,
    });
    expect(seen.at(-1)).toEqual({ name: 'inbox' });
    const runsOf = async (user?: string) =>
      (await send(handler, 'GET', '/interactions', undefined, as(user))).body.items.map(
        (item: { runId: string }) => item.runId,
      );
    expect(await runsOf('bo')).toEqual([bo.runId]);
    expect(await runsOf()).toEqual([guest.runId]);
    expect(await runsOf('cy')).toEqual([]);

    // Answered: the ask leaves the inbox, and the approval that follows enters it.
    await send(
      handler,
      'POST',
      `/runs/${bo.runId}/answer`,
      { answers: { 'Cell lines': ['K562'] } },
      as('bo'),
    );
    const next = await send(handler, 'GET', '/interactions?kind=approval', undefined, as('bo'));
    expect(next.body.items).toEqual([
      expect.objectContaining({ runId: bo.runId, kind: 'approval', summary: 'thaw_vials approval' }),
    ]);
  });

  it('pages with limit and cursor, and refuses a bad query with 400', async () => {
    const handler = inboxHandler();
    const runIds: string[] = [];
    for (let n = 0; n < 3; n++)
      runIds.push((await send(handler, 'POST', '/runs', { input: `r${n}` }, as('ana'))).body.runId);
    const first = await send(handler, 'GET', '/interactions?limit=2', undefined, as('ana'));
    expect(first.body.items.map((item: { runId: string }) => item.runId)).toEqual(runIds.slice(0, 2));
    expect(first.body.cursor).toEqual(expect.any(String));
    const second = await send(
      handler,
      'GET',
      `/interactions?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`,
      undefined,
      as('ana'),
    );
    expect(second.body).toEqual({ items: [expect.objectContaining({ runId: runIds[2] })], cursor: null });
    for (const query of ['limit=0', 'limit=x', 'expiringBefore=soon', 'cursor=%21%21', 'cursor=bm9wZQ']) {
      const refused = await send(handler, 'GET', `/interactions?${query}`, undefined, as('ana'));
      expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'BAD_REQUEST']);
    }
  });

  it('calls the handler’s onInteraction once per stored pause', async () => {
    const announced: { runId: string; id: string; kind: string }[] = [];
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      onInteraction: (pending, run) => {
        announced.push({ runId: run.runId, id: pending.id, kind: pending.kind });
      },
    });
    const started = (await send(handler, 'POST', '/runs', { input: 'a' })).body;
    await send(handler, 'GET', `/runs/${started.runId}`);
    expect(announced).toEqual([{ runId: started.runId, id: started.pending[0].id, kind: 'question' }]);
    await send(handler, 'POST', `/runs/${started.runId}/answer`, { answers: { 'Cell lines': ['K562'] } });
    expect(announced.map((item) => item.kind)).toEqual(['question', 'approval']);
  });

  it('does not exist in client-held mode, where no store keeps the asks', async () => {
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET });
    expect((await send(handler, 'GET', '/interactions')).status).toBe(404);
  });
});
