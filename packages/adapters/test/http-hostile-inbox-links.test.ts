/**
 * `GET /interactions` and `POST /interactions/:token` (DESIGN §20) given what they do not take: a
 * forged or stale cursor, an unknown or repeated query parameter, a NUL (a 500 on PostgreSQL before),
 * a link body with unknown keys or a wrong type, a link whose interaction no longer waits. Each is a
 * clear 400 (or 422) that changes nothing, on every store where a store is involved.
 */

import { createSessions, defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createHandler } from '../src/http/public.js';
import { sharedStores } from './helpers/lease-stores.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';
import {
  ada,
  answerK562,
  bearer,
  linkStillAnswers,
  paused,
  STORES,
  servers,
  storedState,
} from './http-hostile-fixtures.js';

describe('GET /interactions paged with forged and stale cursors', () => {
  const key = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const forged = [
    '!!',
    'bm9wZQ',
    'a'.repeat(5000),
    Buffer.from([0x31, 0xff, 0x0a]).toString('base64url'),
    key('000000000000001\nrun_x'),
    key('000000000000001\nrun\u0000x\ninventory:1'),
    key('999999999999999\nrun_x\n\u0000'),
  ];

  for (const kind of STORES) {
    it.skipIf(servers.missing(kind))(
      `${kind}: refuses a cursor no page returned, or a NUL in the query, with a clear 400, never a 500; pages on with a stale cursor`,
      async () => {
        const backend = await sharedStores(kind, 'hostile-inbox', 1, servers.urls[kind]);
        try {
          const onError = vi.fn();
          let minute = 0;
          const handler = createHandler({
            agent: inventoryAgent(),
            store: backend.stores[0]!,
            onError,
            // Each call a minute later, so the asks have an order.
            now: () => new Date(Date.UTC(2030, 0, 1, 9, minute++)),
          });
          const runIds: string[] = [];
          for (let n = 0; n < 4; n++)
            runIds.push((await send(handler, 'POST', '/runs', { input: `r${n}` })).body.runId);
          for (const cursor of forged) {
            const refused = await send(handler, 'GET', `/interactions?cursor=${encodeURIComponent(cursor)}`);
            expect([cursor.slice(0, 30), refused.status, refused.body.code]).toEqual([
              cursor.slice(0, 30),
              400,
              'BAD_REQUEST',
            ]);
            expect(refused.body.detail).toMatch(/cursor.* is not one an inbox page returned/);
          }
          for (const query of ['kind=%00', 'assignee=a%00b', 'expiringBefore=%00']) {
            const refused = await send(handler, 'GET', `/interactions?${query}`);
            expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'BAD_REQUEST']);
          }
          expect(onError).not.toHaveBeenCalled();
          const first = (await send(handler, 'GET', '/interactions?limit=2')).body;
          expect(first.items.map((item: { runId: string }) => item.runId)).toEqual(runIds.slice(0, 2));
          // The cursor's own ask is answered meanwhile: the cursor still marks a place in the order.
          await send(handler, 'POST', `/runs/${runIds[1]}/answer`, answerK562);
          const next = (await send(handler, 'GET', `/interactions?limit=2&cursor=${first.cursor}`)).body;
          expect(next.items.map((item: { runId: string; kind: string }) => [item.runId, item.kind])).toEqual([
            [runIds[2], 'question'],
            [runIds[3], 'question'],
          ]);
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});

describe('GET /interactions given a query it does not take', () => {
  it('refuses unknown, repeated and misspelt parameters and an unknown kind with 400, and never widens what a caller sees', async () => {
    const setup = await paused();
    const bo = { ...bearer, 'x-user': 'bo' };
    const theirs = (await send(setup.handler, 'GET', '/interactions', undefined, bo)).body;
    expect(theirs).toEqual({ items: [], cursor: null });
    for (const [query, named] of [
      ['curser=abc', /"curser"/],
      ['principal=ada', /"principal"/],
      ['visibleTo=ada', /"visibleTo"/],
      ['limit=1&limit=500', /limit.*once/],
      ['kind=question&kind=approval', /kind.*once/],
      ['kind=questions', /kind must be one of approval, budget, in_doubt, input, question/],
    ] as const) {
      const refused = await send(setup.handler, 'GET', `/interactions?${query}`, undefined, bo);
      expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'BAD_REQUEST']);
      expect(refused.body.detail).toMatch(named);
    }
    const mine = await send(setup.handler, 'GET', '/interactions?kind=question&limit=5', undefined, ada);
    expect(mine.body.items.map((item: { runId: string }) => item.runId)).toEqual([setup.runId]);
  });
});

describe('POST /interactions/:token given a body that does not fit', () => {
  it('refuses unknown keys, a wrong type or a body that is no object with 400, as the answer route does, and the link stays usable', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    const user = { 'x-user': 'ada' };
    const bodies = [
      { ...answerK562, typo: 1 },
      { ...answerK562, snapshot: 'x' },
      { type: 'answer', ...answerK562, typo: 1 },
      { type: 'answer', answers: 5 },
      { type: 'answer!', ...answerK562 },
      { type: 'approve', rationale: 7 },
      { reason: 'x'.repeat(20_000) },
      [],
      null,
      'K562',
    ];
    for (const body of bodies) {
      const refused = await send(
        setup.handler,
        'POST',
        `/interactions/${setup.link}`,
        JSON.stringify(body),
        user,
      );
      expect([JSON.stringify(body).slice(0, 40), refused.status, refused.body.code]).toEqual([
        JSON.stringify(body).slice(0, 40),
        400,
        'BAD_REQUEST',
      ]);
      expect(refused.body.detail).toMatch(/^The request body does not fit this route:\n- /);
    }
    // The answer route gives the same 400 to the same mistake.
    const onRoute = await send(setup.handler, 'POST', `/runs/${setup.runId}/answer`, bodies[0], ada);
    const onLink = await send(setup.handler, 'POST', `/interactions/${setup.link}`, bodies[0], user);
    expect(onLink.body).toEqual(onRoute.body);
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });

  it('says why when the link’s interaction no longer waits, and changes nothing', async () => {
    const setup = await paused();
    const user = { 'x-user': 'ada' };
    await send(setup.handler, 'POST', `/runs/${setup.runId}/stop`, {}, ada);
    const before = await storedState(setup);
    const late = await send(setup.handler, 'POST', `/interactions/${setup.link}`, answerK562, user);
    expect([late.status, late.body.code]).toEqual([422, 'ANSWER_INVALID']);
    expect(late.body.detail).toMatch(/no longer waits/);
    expect(await storedState(setup)).toEqual(before);
  });
});

describe('POST /interactions/:token with a link minted for an assignee', () => {
  it('approves for the assignee, and answers a second use 410 LINK_INVALID once the run has ended, not 404', async () => {
    const charges: string[] = [];
    const charge = defineTool({
      name: 'charge',
      description: 'Charge the card',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      approval: { assignees: ['cfo'], allowRequester: false },
      execute: ({ amount }, ctx) => {
        charges.push(ctx.idempotencyKey);
        return { charged: amount };
      },
    });
    const agent = defineAgent({
      name: 'payments',
      instructions: 'You charge cards.',
      model: scriptedModel([{ toolCalls: [{ name: 'charge', arguments: { amount: 5 } }] }, 'Charged.']),
      tools: [charge],
      snapshot: { secret: SECRET },
    });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const started = await sessions.start('charge 5', { principal: 'alice' });
    const id = started.pending[0]!.id;
    // Four eyes holds for links too: none for the requester.
    await expect(
      sessions.answerLink(started.runId, id, {
        principal: 'alice',
        ttlMs: 60_000,
        response: { type: 'approve' },
      }),
    ).rejects.toMatchObject({ code: 'NOT_ASSIGNEE' });
    const link = await sessions.answerLink(started.runId, id, {
      principal: 'cfo',
      ttlMs: 60_000,
      response: { type: 'approve' },
    });
    const handler = createHandler({ agent, store });
    const used = await send(handler, 'POST', `/interactions/${link}`, {});
    expect([used.status, used.body.status]).toEqual([200, 'completed']);
    const again = await send(handler, 'POST', `/interactions/${link}`, {});
    expect([again.status, again.body.code]).toEqual([410, 'LINK_INVALID']);
    expect(charges).toEqual([`${started.runId}:${used.body.messages[1].tool_calls[0].id}`]);
  });
});
