/**
 * The stop, fork, inbox and answer-link routes (DESIGN §20–§21) asked by callers without access
 * (DESIGN §13): no token, an `authorize` that refuses or throws, another caller's or an unknown run,
 * an assignee who did not start the run, a stop reason that is not text, client-held mode where the
 * routes do not exist, and link tokens never issued. Every refusal is a typed problem and changes
 * nothing.
 */
import { defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createHandler, type RouteInfo } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';
import {
  ada,
  answerK562,
  bearer,
  byUser,
  linkStillAnswers,
  paused,
  storedState,
} from './http-hostile-fixtures.js';

describe('POST /runs/:id/stop given a reason that is not plain text', () => {
  it('refuses a control character in the reason with a 400 naming it, whatever the run is doing, and changes nothing', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    for (const reason of ['a\u0000b', 'clear\u001b[2J', 'del\u007f']) {
      const refused = await send(setup.handler, 'POST', `/runs/${setup.runId}/stop`, { reason }, ada);
      expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(refused.body.issues).toEqual([
        { path: ['reason'], message: expect.stringMatching(/control character U\+00(00|1B|7F)/) },
      ]);
    }
    expect(await storedState(setup)).toEqual(before);
    const plain = await send(
      setup.handler,
      'POST',
      `/runs/${setup.runId}/stop`,
      { reason: 'wrong\tvial\n' },
      ada,
    );
    expect([plain.status, plain.body.stop]).toEqual([200, 'stopped']);
    const atRest = await send(
      setup.handler,
      'POST',
      `/runs/${setup.runId}/stop`,
      { reason: 'a\u0000b' },
      ada,
    );
    expect([atRest.status, atRest.body.code]).toEqual([400, 'BAD_REQUEST']);
  });
});

describe('the stop, fork, inbox and answer-link routes without access', () => {
  it('gives the one bare 401 without the token, and when authorize refuses or throws, asked about the route and run', async () => {
    const onError = vi.fn();
    const asked: RouteInfo[] = [];
    let throwing = false;
    const setup = await paused({
      onError,
      authorize: (request, route) => {
        if (throwing) throw new Error('session store down');
        return byUser(asked)(request, route);
      },
    });
    const before = await storedState(setup);
    asked.length = 0;
    const attempts: [string, string, unknown][] = [
      ['POST', `/runs/${setup.runId}/stop`, {}],
      ['POST', `/runs/${setup.runId}/fork`, { at: 1 }],
      ['GET', '/interactions', undefined],
    ];
    const bodies = new Set<string>();
    for (const [method, path, body] of attempts) {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: 'Bearer wrong', 'x-user': 'ada' },
        { 'x-user': 'ada' },
        bearer,
      ]) {
        const refused = await send(setup.handler, method, path, body, headers);
        expect([path, JSON.stringify(headers), refused.status]).toEqual([path, JSON.stringify(headers), 401]);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer');
        bodies.add(JSON.stringify(refused.body));
      }
    }
    // A link needs no token, but this app's authorize wants a signed-in caller.
    const anonymous = await send(setup.handler, 'POST', `/interactions/${setup.link}`, answerK562);
    expect(anonymous.status).toBe(401);
    bodies.add(JSON.stringify(anonymous.body));
    expect(bodies.size).toBe(1);
    expect(asked).toEqual([
      { name: 'stop', runId: setup.runId },
      { name: 'fork', runId: setup.runId },
      { name: 'inbox' },
      { name: 'answer-link' },
    ]);
    throwing = true;
    for (const [method, path, body] of attempts) {
      expect((await send(setup.handler, method, path, body, ada)).status).toBe(401);
    }
    expect((await send(setup.handler, 'POST', `/interactions/${setup.link}`, answerK562, ada)).status).toBe(
      401,
    );
    expect(onError).toHaveBeenCalledTimes(4);
    throwing = false;
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });
  it('answers stop and fork about an unknown, malformed or another caller’s run with the same 404, changing nothing', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    const bo = { ...bearer, 'x-user': 'bo' };
    for (const route of ['stop', 'fork']) {
      const body = route === 'fork' ? { at: 1 } : { reason: 'not mine' };
      for (const [runId, headers] of [
        [setup.runId, bo],
        ['run_AAAAAAAAAAAAAAAAAAAAAA', ada],
        ['run_with.dots', ada],
        ['%00', ada],
        ['x'.repeat(300), ada],
      ] as const) {
        const refused = await send(setup.handler, 'POST', `/runs/${runId}/${route}`, body, headers);
        expect([route, runId.slice(0, 20), refused.status, refused.body.code]).toEqual([
          route,
          runId.slice(0, 20),
          404,
          'RUN_NOT_FOUND',
        ]);
      }
    }
    // Another caller's run reads exactly as an unknown one: nothing tells bo that it exists.
    for (const route of ['stop', 'fork']) {
      const theirs = await send(
        setup.handler,
        'POST',
        `/runs/${setup.runId}/${route}`,
        route === 'fork' ? { at: 1 } : {},
        bo,
      );
      const unknown = await send(
        setup.handler,
        'POST',
        `/runs/run_AAAAAAAAAAAAAAAAAAAAAA/${route}`,
        route === 'fork' ? { at: 1 } : {},
        bo,
      );
      expect(theirs.body).toEqual(unknown.body);
      expect(theirs.body.detail).toMatch(/check the id, or call as the caller that started the run/);
    }
    expect(await storedState(setup)).toEqual(before);
    expect((await send(setup.handler, 'GET', '/interactions', undefined, bo)).body.items).toEqual([]);
    await linkStillAnswers(setup);
  });
});

describe('the new routes where they do not exist, and links that were never issued', () => {
  it('serves none of them in client-held mode: a 404 problem, as for any unknown route', async () => {
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET });
    const started = (await send(handler, 'POST', '/runs', { input: 'thaw' })).body;
    for (const [method, path, body] of [
      ['POST', `/runs/${started.runId}/stop`, {}],
      ['POST', `/runs/${started.runId}/fork`, { at: 1 }],
      ['GET', '/interactions', undefined],
      ['POST', '/interactions/tkl1.e30.00', answerK562],
    ] as const) {
      const missing = await send(handler, method, path, body);
      expect([path, missing.status, missing.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  it('refuses a link token that is too long, holds a NUL or has extra parts with 403; an extra path segment is unrouted (behind the token: 401)', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    const user = { 'x-user': 'ada' };
    for (const token of [
      `${setup.link}${'0'.repeat(20_000)}`,
      `${setup.link}%00`,
      `${setup.link}.00`,
      encodeURIComponent(`${setup.link} `),
      'tkl1..',
    ]) {
      const refused = await send(setup.handler, 'POST', `/interactions/${token}`, answerK562, user);
      expect([token.slice(-12), refused.status, refused.body.code]).toEqual([
        token.slice(-12),
        403,
        'LINK_INVALID',
      ]);
      expect(refused.body.detail).toMatch(/not issued by this server, or it was altered/);
    }
    const deeper = await send(setup.handler, 'POST', `/interactions/${setup.link}/approve`, {}, user);
    expect(deeper.status).toBe(401);
    const tokened = await send(setup.handler, 'POST', `/interactions/${setup.link}/approve`, {}, ada);
    expect([tokened.status, tokened.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });
});

describe('the stop and fork routes asked by an assignee of the run', () => {
  it('lets an assignee read and answer a run it did not start, but neither stop nor fork it (404, nothing changed)', async () => {
    const thawed: number[] = [];
    const agent = defineAgent({
      name: 'lab',
      instructions: 'Lab assistant.',
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'record_thaw', arguments: { vials: 2 } }] },
        'done',
      ]),
      tools: [
        defineTool({
          name: 'record_thaw',
          description: 'Record a thaw',
          input: z.object({ vials: z.number() }),
          needsApproval: true,
          approval: { assignees: ['grace'] },
          execute: ({ vials }) => {
            thawed.push(vials);
            return { recorded: true };
          },
        }),
      ],
    });
    const handler = createHandler({ agent, store: memoryStore(), authorize: byUser([]) });
    const grace = { 'x-user': 'grace' };
    const started = (await send(handler, 'POST', '/runs', { input: 'thaw two' }, { 'x-user': 'ada' })).body;
    const run = `/runs/${started.runId}`;
    const seen = await send(handler, 'GET', run, undefined, grace);
    expect([seen.status, seen.body.pending[0].kind]).toEqual([200, 'approval']);
    const inbox = (await send(handler, 'GET', '/interactions', undefined, grace)).body;
    expect(inbox.items.map((item: { runId: string }) => item.runId)).toEqual([started.runId]);
    for (const [route, body] of [
      ['stop', {}],
      ['fork', { at: 1 }],
    ] as const) {
      const refused = await send(handler, 'POST', `${run}/${route}`, body, grace);
      expect([route, refused.status, refused.body.code]).toEqual([route, 404, 'RUN_NOT_FOUND']);
    }
    const after = await send(handler, 'GET', run, undefined, grace);
    expect([after.body.status, after.body.version]).toEqual([seen.body.status, seen.body.version]);
    expect((await send(handler, 'GET', '/interactions', undefined, grace)).body.items).toHaveLength(1);
    const approved = await send(handler, 'POST', `${run}/approve`, {}, grace);
    expect([approved.status, approved.body.status, thawed]).toEqual([200, 'completed', [2]]);
  });
});
