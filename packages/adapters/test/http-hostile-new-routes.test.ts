/**
 * The routes of DESIGN §20–§21 under hostile clients (DESIGN §13), mostly over real HTTP:
 * `POST /runs/:id/stop`, `POST /runs/:id/fork`, `GET /interactions` and `POST /interactions/:token`
 * asked with HEAD, OPTIONS and wrong methods, through encoded segments, and with bodies that are too
 * large, malformed or not JSON. Every refusal is a problem with a TurnKit `code`, and none changes
 * what is stored (see http-hostile-access, -double-submits, -inbox for the rest).
 */
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';
import {
  ada,
  bearer,
  call,
  closeServers,
  linkStillAnswers,
  paused,
  serve,
  storedState,
} from './http-hostile-fixtures.js';

afterEach(closeServers);

describe('the stop, fork, extend, inbox and answer-link routes asked with HEAD, OPTIONS and wrong methods', () => {
  it('answers HEAD and other methods on the POST routes with the 404 problem the older routes give, and changes nothing', async () => {
    const setup = await paused();
    const server = await serve(setup.handler);
    const before = await storedState(setup);
    const older = await call(server, 'GET', `/runs/${setup.runId}/answer`, undefined, ada);
    expect(older.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    for (const path of [
      `/runs/${setup.runId}/stop`,
      `/runs/${setup.runId}/fork`,
      `/runs/${setup.runId}/extend`,
      `/interactions/${setup.link}`,
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const response = await call(server, method, path, undefined, ada);
        expect([method, path, response.status, response.body.code]).toEqual([method, path, 404, 'NOT_FOUND']);
        expect(response.body.detail).toBe(`No route ${method} ${path}.`);
      }
      const head = await call(server, 'HEAD', path, undefined, ada);
      expect([path, head.status, head.body]).toEqual([path, 404, null]);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await call(server, method, '/interactions', '{}', {
        ...ada,
        'content-type': 'application/json',
      });
      expect([method, response.status, response.body.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expect(setup.asked.filter((route) => !['start', 'get', 'inbox'].includes(route.name))).toEqual([]);
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });

  it('answers HEAD /interactions as its GET without a body, with the same access checks', async () => {
    const setup = await paused();
    const server = await serve(setup.handler);
    const head = await call(server, 'HEAD', '/interactions', undefined, ada);
    expect([head.status, head.headers.get('content-type'), head.body]).toEqual([
      200,
      'application/json',
      null,
    ]);
    expect(setup.asked.at(-1)).toEqual({ name: 'inbox' });
    expect((await call(server, 'HEAD', '/interactions', undefined, bearer)).status).toBe(401);
    expect((await call(server, 'HEAD', '/interactions', undefined, { 'x-user': 'ada' })).status).toBe(401);
    expect((await call(server, 'HEAD', '/interactions?cursor=%21', undefined, ada)).status).toBe(400);
  });

  it('answers a CORS preflight on every new route before the token and authorize, and no preflight without cors', async () => {
    const preflight = {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    const withCors = await paused({ cors: { origins: ['https://app.example'] } });
    const corsServer = await serve(withCors.handler);
    const without = await paused();
    const plainServer = await serve(without.handler);
    const untokened = await serve(
      createHandler({ agent: inventoryAgent({ secret: SECRET }), store: memoryStore() }),
    );
    const paths = [
      `/runs/${withCors.runId}/stop`,
      `/runs/${withCors.runId}/fork`,
      `/runs/${withCors.runId}/extend`,
      '/interactions',
      `/interactions/${withCors.link}`,
    ];
    const askedBefore = withCors.asked.length;
    for (const path of [...paths, '/runs']) {
      const allowed = await call(corsServer, 'OPTIONS', path, undefined, preflight);
      expect([path, allowed.status]).toEqual([path, 204]);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(allowed.headers.get('access-control-allow-methods')).toBe('GET,POST');
      const stranger = await call(corsServer, 'OPTIONS', path, undefined, {
        ...preflight,
        origin: 'https://evil.example',
      });
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
      // Without cors, a preflight is an unrouted request, as on the older routes.
      const tokened = await call(plainServer, 'OPTIONS', path, undefined, preflight);
      expect([path, tokened.status, tokened.body.code]).toEqual([path, 401, 'UNAUTHORIZED']);
      expect(tokened.headers.get('access-control-allow-origin')).toBeNull();
      const unrouted = await call(untokened, 'OPTIONS', path, undefined, preflight);
      expect([path, unrouted.status, unrouted.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect(withCors.asked.length).toBe(askedBefore);
    // The actual request after the preflight carries the CORS headers, refused or not.
    const refused = await call(corsServer, 'POST', paths[0]!, '{}', {
      origin: 'https://app.example',
      'content-type': 'application/json',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const stopped = await call(corsServer, 'POST', paths[0]!, '{}', {
      ...ada,
      origin: 'https://app.example',
      'content-type': 'application/json',
    });
    expect([stopped.status, stopped.body.stop]).toEqual([200, 'stopped']);
    expect(stopped.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('routes no percent-encoded letter in the fixed segments of the new routes', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    for (const path of [
      `/runs/${setup.runId}/%73top`,
      `/runs/${setup.runId}/f%6Frk`,
      '/%69nteractions',
      `/%69nteractions/${setup.link}`,
    ]) {
      const response = await send(setup.handler, 'POST', path, path.includes('f%6Frk') ? { at: 1 } : {}, ada);
      expect([path, response.status, response.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });
});

describe('the stop, fork and answer-link routes given bad bodies', () => {
  it('refuses a body that is not JSON, malformed, of the wrong shape or too large with a typed problem, and changes nothing', async () => {
    const setup = await paused({ maxBodyBytes: 4096 });
    const server = await serve(setup.handler);
    const before = await storedState(setup);
    const json = { 'content-type': 'application/json' };
    const routes = [
      {
        path: `/runs/${setup.runId}/stop`,
        headers: ada,
        shapes: ['{"reason":5}', '{"why":"x"}', '[]', 'null'],
      },
      {
        path: `/runs/${setup.runId}/fork`,
        headers: ada,
        shapes: ['{}', '{"at":0}', '{"at":"1"}', '{"at":{"interactionId":""}}', '{"at":1,"more":1}', '"1"'],
      },
      { path: `/interactions/${setup.link}`, headers: { 'x-user': 'ada' }, shapes: [] as string[] },
    ];
    for (const { path, headers, shapes } of routes) {
      const expectProblem = async (
        body: string | ReadableStream<Uint8Array>,
        extra: Record<string, string>,
        status: number,
        code: string,
      ) => {
        const response = await call(server, 'POST', path, body, { ...headers, ...extra });
        expect([path, status, code]).toEqual([path, response.status, response.body.code]);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(response.body.detail).toEqual(expect.any(String));
      };
      await expectProblem('{}', { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE');
      await expectProblem(
        'reason=x',
        { 'content-type': 'application/x-www-form-urlencoded' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      await expectProblem('{"reason":', json, 400, 'BAD_REQUEST');
      for (const shape of shapes) await expectProblem(shape, json, 400, 'BAD_REQUEST');
      await expectProblem(JSON.stringify({ reason: 'x'.repeat(5000) }), json, 413, 'BODY_TOO_LARGE');
      const endless = () => {
        let pulled = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (++pulled > 50) return controller.close();
            controller.enqueue(new TextEncoder().encode(' '.repeat(1000)));
          },
        });
        return { stream, pulled: () => pulled };
      };
      // A body streamed without Content-Length: the handler stops reading once past the limit.
      const inProcess = endless();
      const request = new Request(`http://test.local${path}`, {
        method: 'POST',
        headers: { ...headers, ...json },
        body: inProcess.stream,
        duplex: 'half',
      } as RequestInit);
      expect((await setup.handler(request)).status).toBe(413);
      expect(inProcess.pulled()).toBeLessThan(10);
    }
    expect(await storedState(setup)).toEqual(before);
    await linkStillAnswers(setup);
  });
});
