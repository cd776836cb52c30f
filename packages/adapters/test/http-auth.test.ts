import { memoryStore } from '@turnkit/core';
import { describe, expect, it, vi } from 'vitest';
import { safeEqual } from '../src/http/auth.js';
import { createHandler } from '../src/http/index.js';
import { inventoryAgent, send } from './http-fixtures.js';

const TOKEN = 'a-long-random-api-token';
const auth = { authorization: `Bearer ${TOKEN}` };

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
      'authorization,content-type,last-event-id',
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
