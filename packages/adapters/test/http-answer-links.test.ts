/**
 * `POST /interactions/:token` (route `answer-link`, DESIGN §20): an answer link answers once, with
 * no bearer token; used or expired links are 410, forged or altered ones 403 (`LINK_INVALID`).
 */
import { createSessions, memoryStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

const TOKEN = 'api-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };

/** Two handlers (two workers) over one store, and the sessions an app mints links with. */
function setup() {
  const thawed: string[][] = [];
  const agent = inventoryAgent({ secret: SECRET, thawed });
  const store = memoryStore();
  const workers = [1, 2].map(() => createHandler({ agent, store, token: TOKEN }));
  return { workers, handler: workers[0]!, sessions: createSessions({ agent, store }), thawed };
}

describe('POST /interactions/:token', () => {
  it('answers with the body when the link carries no response, without a bearer token, once', async () => {
    const { handler, sessions } = setup();
    const started = (await send(handler, 'POST', '/runs', { input: 'thaw' }, bearer)).body;
    const token = await sessions.answerLink(started.runId, started.pending[0].id, { ttlMs: 60_000 });
    const answered = await send(handler, 'POST', `/interactions/${token}`, {
      answers: { 'Cell lines': ['K562'] },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('needs_input');
    expect(answered.body.pending[0].kind).toBe('approval');
    const again = await send(handler, 'POST', `/interactions/${token}`, {
      answers: { 'Cell lines': ['HeLa'] },
    });
    expect([again.status, again.body.code]).toEqual([410, 'LINK_INVALID']);
  });

  it('approves with a one-click link; of two workers racing with it, one answers and the tool runs once', async () => {
    const { workers, handler, sessions, thawed } = setup();
    const started = (await send(handler, 'POST', '/runs', { input: 'thaw' }, bearer)).body;
    const approval = (
      await send(
        handler,
        'POST',
        `/runs/${started.runId}/answer`,
        { answers: { 'Cell lines': ['K562'] } },
        bearer,
      )
    ).body;
    const token = await sessions.answerLink(started.runId, approval.pending[0].id, {
      ttlMs: 60_000,
      response: { type: 'approve' },
    });
    const uses = await Promise.all(
      workers.map((worker) => send(worker, 'POST', `/interactions/${token}`, {})),
    );
    expect(uses.map((use) => use.status).sort()).toEqual([200, 410]);
    expect(uses.find((use) => use.status === 200)!.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
  });

  it('refuses a forged or altered link with 403, and an expired one with 410', async () => {
    const { handler, sessions } = setup();
    const started = (await send(handler, 'POST', '/runs', { input: 'thaw' }, bearer)).body;
    const id = started.pending[0].id;
    const forged = await send(handler, 'POST', '/interactions/tkl1.e30.00', {
      answers: { 'Cell lines': ['K562'] },
    });
    expect([forged.status, forged.body.code]).toEqual([403, 'LINK_INVALID']);
    const token = await sessions.answerLink(started.runId, id, { ttlMs: 1 });
    const altered = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    expect((await send(handler, 'POST', `/interactions/${altered}`, {})).status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await send(handler, 'POST', `/interactions/${token}`, {
      answers: { 'Cell lines': ['K562'] },
    });
    expect([expired.status, expired.body.code]).toEqual([410, 'LINK_INVALID']);
    expect((await send(handler, 'GET', `/runs/${started.runId}`, undefined, bearer)).body.status).toBe(
      'needs_input',
    );
  });
});
