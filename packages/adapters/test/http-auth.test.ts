import { memoryStore } from '@turnkit/core';
import { describe, expect, it, vi } from 'vitest';
import { safeEqual } from '../src/http/crypto.js';
import { createHandler, ROUTE_NAMES, type RouteInfo } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

const TOKEN = 'a-long-random-api-token';
const auth = { authorization: `Bearer ${TOKEN}` };

/** `authorize` naming users by their `x-user` header and letting guests in without a principal. */
const guests = (request: Request) => {
  const user = request.headers.get('x-user');
  return user ? { principal: `user:${user}` } : true;
};
const ada = { 'x-user': 'ada' };

describe('createHandler access control', () => {
  it('answers every request without the right token with the same bare 401', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), token: TOKEN });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, auth);
    expect(started.status).toBe(201);
    const known = `/runs/${started.body.runId}`;
    const bodies = new Set<string>();
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: TOKEN },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      for (const [method, path] of [
        ['GET', known],
        ['GET', '/runs/run_unknown'],
        ['GET', `${known}/events`],
        ['POST', `${known}/answer`],
        ['POST', '/runs'],
        ['GET', '/no/such/route'],
      ] as const) {
        const response = await send(
          handler,
          method,
          path,
          method === 'POST' ? '{broken' : undefined,
          headers,
        );
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        bodies.add(JSON.stringify(response.body));
      }
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect((await send(handler, 'GET', known, undefined, auth)).status).toBe(200);
  });

  it('uses an authorize callback, with the token when both are given; a throwing one denies', async () => {
    const onError = vi.fn();
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      token: TOKEN,
      onError,
      authorize: (request) => {
        if (request.headers.get('x-user') === 'boom') throw new Error('directory down');
        return request.headers.get('x-user') === 'ada';
      },
    });
    const call = (headers: Record<string, string>) =>
      send(handler, 'POST', '/runs', { input: 'hi' }, headers);
    expect((await call({ ...auth, 'x-user': 'ada' })).status).toBe(201);
    expect((await call({ ...auth, 'x-user': 'eve' })).status).toBe(401);
    expect((await call({ 'x-user': 'ada' })).status).toBe(401);
    expect((await call({ ...auth, 'x-user': 'boom' })).status).toBe(401);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('compares secrets of any length without throwing', () => {
    expect(safeEqual(TOKEN, TOKEN)).toBe(true);
    expect(safeEqual('', TOKEN)).toBe(false);
    expect(safeEqual(`${TOKEN}x`, TOKEN)).toBe(false);
  });
});

describe('authorize(request, route)', () => {
  const answer = { answers: { 'Cell lines': ['K562'] } };

  it('names every route from a closed list', () => {
    expect(ROUTE_NAMES).toEqual([
      'start',
      'get',
      'answer',
      'approve',
      'reject',
      'cancel',
      'input',
      'message',
      'retry',
      'stop',
      'fork',
      'extend',
      'events',
      'sweep',
      'aiSdk',
      'agUi',
      'mcp',
      'a2a',
      'inbox',
      'answer-link',
    ]);
  });

  it('is asked about the route the router matched, with its run id', async () => {
    const seen: RouteInfo[] = [];
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (_request, route) => {
        seen.push(route);
        return true;
      },
    });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' });
    const runId = started.body.runId as string;
    await send(handler, 'GET', `/runs/${runId}`);
    await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    await send(handler, 'POST', `/runs/${runId}/reject`, {});
    await send(handler, 'POST', `/runs/${runId}/messages`, { input: 'again' });
    await send(handler, 'POST', `/runs/${runId}/retry`, {});
    await send(handler, 'POST', `/runs/${runId}/cancel`, {});
    await send(handler, 'POST', `/runs/${runId}/approve`, {});
    await handler(new Request(`http://test.local/runs/${runId}/events`, { method: 'HEAD' }));
    await send(handler, 'GET', '/no/such/route');
    expect(seen).toEqual([
      { name: 'start' },
      { name: 'get', runId },
      { name: 'answer', runId },
      { name: 'reject', runId },
      { name: 'message', runId },
      { name: 'retry', runId },
      { name: 'cancel', runId },
      { name: 'approve', runId },
      { name: 'events', runId },
    ]);
  });

  it('never routes a percent-encoded letter of a fixed segment, so a hook cannot be bypassed', async () => {
    const thawed: string[][] = [];
    const handler = createHandler({
      agent: inventoryAgent({ thawed }),
      store: memoryStore(),
      // A legacy one-argument hook that reads the URL itself.
      authorize: (request) => !new URL(request.url).pathname.endsWith('/approve'),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' });
    const runId = started.body.runId as string;
    await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    expect((await send(handler, 'POST', `/runs/${runId}/approve`, {})).status).toBe(401);
    for (const path of [
      `/runs/${runId}/%61pprove`,
      `/runs/${runId}/%61%70%70%72%6F%76%65`,
      `/%72uns/${runId}`,
    ]) {
      const response = await send(handler, 'POST', path, {});
      expect(response, path).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    }
    expect(thawed).toEqual([]);
    const read = await send(handler, 'GET', `/runs/${runId}`);
    expect(read.body.pending[0].kind).toBe('approval');
    const encodedId = `/runs/${runId.replace('_', '%5F')}`;
    expect((await send(handler, 'GET', encodedId)).body.runId).toBe(runId);
  });

  it('binds the runs a principal starts to that principal, in store mode', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request) => {
        const user = request.headers.get('x-user');
        return user ? { principal: `user:${user}` } : false;
      },
    });
    const ada = { 'x-user': 'ada' };
    const eve = { 'x-user': 'eve' };
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, ada);
    const runId = started.body.runId as string;
    for (const [method, path, body] of [
      ['GET', `/runs/${runId}`, undefined],
      ['GET', `/runs/${runId}/events`, undefined],
      ['POST', `/runs/${runId}/answer`, answer],
      ['POST', `/runs/${runId}/messages`, { input: 'mine now' }],
    ] as const) {
      const response = await send(handler, method, path, body, eve);
      expect(response, `${method} ${path}`).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    }
    expect((await send(handler, 'GET', `/runs/${runId}`, undefined, ada)).body.status).toBe('needs_input');
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, answer, ada);
    expect(answered.body.pending[0].kind).toBe('approval');
    expect((await send(handler, 'GET', `/runs/${runId}`, undefined, {})).status).toBe(401);
  });

  it('binds the runs a principal starts to that principal, in client-held mode', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      secret: SECRET,
      authorize: (request) => ({ principal: request.headers.get('x-user') ?? 'anonymous' }),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, { 'x-user': 'ada' });
    const path = `/runs/${started.body.runId}/answer`;
    const body = { ...answer, snapshot: started.body.snapshot };
    const stolen = await send(handler, 'POST', path, body, { 'x-user': 'eve' });
    expect(stolen).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    expect((await send(handler, 'POST', path, body, { 'x-user': 'ada' })).status).toBe(200);
  });

  it('hides a bound run from a guest (authorize returned true) in store mode: 404, and nothing changes', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), authorize: guests });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, ada);
    const runId = started.body.runId as string;
    for (const [method, path, body] of [
      ['GET', `/runs/${runId}`, undefined],
      ['GET', `/runs/${runId}/events`, undefined],
      ['POST', `/runs/${runId}/reject`, {}],
      ['POST', `/runs/${runId}/answer`, answer],
    ] as const) {
      const response = await send(handler, method, path, body, {});
      expect(response, `${method} ${path}`).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    }
    const own = await send(handler, 'GET', `/runs/${runId}`, undefined, ada);
    expect(own.body).toMatchObject({ status: 'needs_input', pending: [{ kind: 'question' }] });
    const guestRun = await send(handler, 'POST', '/runs', { input: 'hi' }, {});
    expect((await send(handler, 'GET', `/runs/${guestRun.body.runId}`, undefined, {})).status).toBe(200);
    expect((await send(handler, 'GET', `/runs/${guestRun.body.runId}`, undefined, ada)).status).toBe(200);
  });

  it('hides a bound run from a guest in client-held mode: its snapshot resumes nothing', async () => {
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET, authorize: guests });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, ada);
    const path = `/runs/${started.body.runId}`;
    const held = { snapshot: started.body.snapshot };
    for (const [route, body] of [
      ['reject', held],
      ['answer', { ...answer, ...held }],
    ] as const) {
      const stolen = await send(handler, 'POST', `${path}/${route}`, body, {});
      expect(stolen, route).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    }
    expect((await send(handler, 'POST', `${path}/answer`, { ...answer, ...held }, ada)).status).toBe(200);
  });

  it("binds a client-held run's eventsToken to its caller: bob holding ada's token reads nothing", async () => {
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET, authorize: guests });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' }, ada);
    const events = (headers: Record<string, string>) =>
      handler(
        new Request(`http://test.local/runs/${started.body.runId}/events`, {
          headers: { 'turnkit-events-token': started.body.eventsToken, ...headers },
        }),
      );
    for (const caller of [{ 'x-user': 'bob' }, {}] as Record<string, string>[]) {
      const stolen = await events(caller);
      expect(stolen.status).toBe(404);
      await stolen.body?.cancel();
    }
    const own = await events(ada);
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('refuses, and reports, an authorize answer that is neither a boolean nor a principal', async () => {
    const onError = vi.fn();
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      onError,
      authorize: () => ({ principal: '' }),
    });
    expect((await send(handler, 'POST', '/runs', { input: 'hi' })).status).toBe(401);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(String(onError.mock.calls[0]![0])).toMatch(/principal: <non-empty string>/);
  });
});

describe('createHandler CORS', () => {
  const preflight = {
    origin: 'https://app.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  };

  it('answers no preflight and adds no CORS header unless cors is given', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), token: TOKEN });
    const response = await send(handler, 'OPTIONS', '/runs', undefined, preflight);
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const open = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const unrouted = await send(open, 'OPTIONS', '/runs', undefined, preflight);
    expect(unrouted.status).toBe(404);
    const posted = await send(open, 'POST', '/runs', { input: 'hi' }, { origin: 'https://app.example' });
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers preflights of listed origins only, before the token check, and marks every response', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      token: TOKEN,
      cors: { origins: ['https://app.example'] },
    });
    const allowed = await handler(
      new Request('http://test.local/runs', { method: 'OPTIONS', headers: preflight }),
    );
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,last-event-id,prefer,turnkit-events-token',
    );
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET,POST');
    const stranger = await handler(
      new Request('http://test.local/runs', {
        method: 'OPTIONS',
        headers: { ...preflight, origin: 'https://evil.example' },
      }),
    );
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const denied = await send(handler, 'GET', '/runs/run_x', undefined, { origin: 'https://app.example' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const missing = await send(handler, 'GET', '/runs/run_x', undefined, {
      ...auth,
      origin: 'https://app.example',
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});
