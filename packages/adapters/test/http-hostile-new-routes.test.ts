/**
 * The routes of DESIGN §20–§21 under hostile clients (DESIGN §13), over real HTTP where it matters:
 * `POST /runs/:id/stop`, `POST /runs/:id/fork`, `GET /interactions` and `POST /interactions/:token`
 * asked with HEAD, OPTIONS and wrong methods, with bodies that are too large, malformed or not JSON,
 * without the token or refused by `authorize`, about runs that do not exist, and twice at once. Every
 * refusal is a problem with a TurnKit `code`, and none changes what is stored.
 */
import {
  type AgentEvent,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createEventHub,
  createHandler,
  type HandlerOptions,
  type HubMessage,
  type RouteInfo,
} from '../src/http/public.js';
import { slowApprovalAgent } from './helpers/lease-agent.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';
import { inventoryAgent, type Listening, listen, SECRET, send } from './http-fixtures.js';

const TOKEN = 'api-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };
const ada = { ...bearer, 'x-user': 'ada' };
const answerK562 = { answers: { 'Cell lines': ['K562'] } };
const servers = findServers();
const STORES = ['memory', 'file', 'redis', 'postgres'] as const;

/** `authorize` naming callers by `x-user` (none: refused), recording what it was asked about. */
function byUser(asked: RouteInfo[]) {
  return (request: Request, route: RouteInfo) => {
    asked.push(route);
    const user = request.headers.get('x-user');
    return user ? { principal: user } : false;
  };
}

/** A handler with a token and `authorize`, one run of ada's waiting on its question, and a link to it. */
async function paused(options: Partial<HandlerOptions> = {}, store: SnapshotStore = memoryStore()) {
  const asked: RouteInfo[] = [];
  const events: AgentEvent[] = [];
  const agent = inventoryAgent({ secret: SECRET });
  const handler = createHandler({
    agent,
    store,
    token: TOKEN,
    authorize: byUser(asked),
    onEvent: (event) => events.push(event),
    ...options,
  });
  const started = (await send(handler, 'POST', '/runs', { input: 'thaw' }, ada)).body;
  const sessions = createSessions({ agent, store });
  const link = await sessions.answerLink(started.runId, started.pending[0].id, { ttlMs: 600_000 });
  return { handler, sessions, asked, events, runId: started.runId as string, link, started };
}

type Paused = Awaited<ReturnType<typeof paused>>;

/** What a client sees of the run and of ada's inbox: unchanged by every refused request. */
async function storedState({ handler, runId }: Paused) {
  const run = (await send(handler, 'GET', `/runs/${runId}`, undefined, ada)).body;
  const inbox = (await send(handler, 'GET', '/interactions', undefined, ada)).body;
  return { status: run.status, version: run.version, pending: run.pending, inbox: inbox.items };
}

/** The link still answers (it was not spent by any refused request). */
async function linkStillAnswers({ handler, link }: Paused) {
  // Any signed-in caller may use a link (this app's `authorize` wants someone), without the token.
  const used = await send(handler, 'POST', `/interactions/${link}`, answerK562, { 'x-user': 'lab-manager' });
  expect(used.status).toBe(200);
  expect(used.body.pending[0].kind).toBe('approval');
}

/** A request over real HTTP: status, headers and the parsed body (null when empty). */
async function call(
  server: Listening,
  method: string,
  path: string,
  body?: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response bodies.
): Promise<{ status: number; headers: Headers; body: any }> {
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (body !== undefined) init.body = body;
  if (body instanceof ReadableStream) init.duplex = 'half';
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<Listening> {
  const server = await listen(handler);
  open.push(server);
  return server;
}

describe('the stop, fork, inbox and answer-link routes asked with HEAD, OPTIONS and wrong methods', () => {
  it('answers HEAD and other methods on the POST routes with the 404 problem the older routes give, and changes nothing', async () => {
    const setup = await paused();
    const server = await serve(setup.handler);
    const before = await storedState(setup);
    const older = await call(server, 'GET', `/runs/${setup.runId}/answer`, undefined, ada);
    expect(older.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    for (const path of [
      `/runs/${setup.runId}/stop`,
      `/runs/${setup.runId}/fork`,
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

/** The event types a hub delivered for a run. */
function heard(hub: ReturnType<typeof createEventHub>, runId: string): string[] {
  const types: string[] = [];
  hub.subscribe(runId, (message: HubMessage) => {
    const type = (message.data as { type?: unknown }).type;
    if (message.event !== 'state' && typeof type === 'string') types.push(type);
  });
  return types;
}

describe('the stop, fork and answer-link routes submitted twice', () => {
  for (const kind of STORES) {
    it.skipIf(servers.missing(kind))(
      `${kind}: a double-clicked stop of a paused run stops it once; the other click finds it at rest`,
      async () => {
        const backend = await sharedStores(kind, 'hostile-stop', 2, servers.urls[kind]);
        try {
          const hub = createEventHub();
          const handlers = backend.stores.map((store) =>
            createHandler({ agent: inventoryAgent(), store, eventHub: hub }),
          );
          const started = (await send(handlers[0]!, 'POST', '/runs', { input: 'thaw' })).body;
          const types = heard(hub, started.runId);
          const clicks = await Promise.all(
            handlers.map((handler) =>
              send(handler, 'POST', `/runs/${started.runId}/stop`, { reason: 'changed my mind' }),
            ),
          );
          expect(clicks.map((click) => click.status)).toEqual([200, 200]);
          expect(clicks.map((click) => click.body.stop).sort()).toEqual(['not_running', 'stopped']);
          expect(clicks.map((click) => click.body.status)).toEqual(['aborted', 'aborted']);
          expect(types.filter((type) => type === 'turn_aborted')).toHaveLength(1);
          const run = (await send(handlers[1]!, 'GET', `/runs/${started.runId}`)).body;
          expect([run.status, run.pending, run.version]).toEqual(['aborted', [], clicks[0]!.body.version]);
          expect(clicks[1]!.body.version).toBe(run.version);
          const third = await send(handlers[0]!, 'POST', `/runs/${started.runId}/stop`, {});
          expect([third.body.stop, third.body.version]).toEqual(['not_running', run.version]);
        } finally {
          await backend.teardown();
        }
      },
    );
  }

  it('a double-clicked stop while a turn plays: both are requests, the turn ends aborted once, its tool ran once', async () => {
    const hub = createEventHub();
    const executed: string[] = [];
    let toolStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const agent = slowApprovalAgent({
      toolMs: 300,
      onExecute: (key) => {
        executed.push(key);
        toolStarted();
      },
    });
    const handler = createHandler({ agent, store: memoryStore(), eventHub: hub });
    const run = (await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' })).body;
    const types = heard(hub, run.runId);
    const playing = send(handler, 'POST', `/runs/${run.runId}/approve`, {});
    await started;
    const clicks = await Promise.all([0, 1].map(() => send(handler, 'POST', `/runs/${run.runId}/stop`, {})));
    expect(clicks.map((click) => [click.status, click.body.stop])).toEqual([
      [200, 'requested'],
      [200, 'requested'],
    ]);
    const played = await playing;
    expect([played.status, played.body.status]).toEqual([200, 'aborted']);
    expect(executed).toHaveLength(1);
    expect(types.filter((type) => type === 'turn_aborted')).toHaveLength(1);
  });

  it('a fork sent twice makes two new runs, each answerable on its own, and leaves the source as it was', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    const forks = await Promise.all(
      [0, 1].map(() => send(setup.handler, 'POST', `/runs/${setup.runId}/fork`, { at: 1 }, ada)),
    );
    expect(forks.map((fork) => fork.status)).toEqual([201, 201]);
    const ids = forks.map((fork) => fork.body.runId);
    expect(new Set([setup.runId, ...ids]).size).toBe(3);
    for (const fork of forks) {
      expect(fork.body.forkedFrom).toEqual({ runId: setup.runId, version: 1 });
      expect(fork.headers.get('location')).toBe(`/runs/${fork.body.runId}`);
    }
    const answered = await send(setup.handler, 'POST', `/runs/${ids[0]}/answer`, answerK562, ada);
    expect(answered.body.pending[0].kind).toBe('approval');
    expect((await send(setup.handler, 'GET', `/runs/${ids[1]}`, undefined, ada)).body.pending[0].kind).toBe(
      'question',
    );
    const after = await storedState(setup);
    expect([after.status, after.version, after.pending]).toEqual([
      before.status,
      before.version,
      before.pending,
    ]);
    expect(after.inbox.map((item: { runId: string }) => item.runId).sort()).toEqual(
      [setup.runId, ...ids].sort(),
    );
  });

  for (const kind of STORES) {
    it.skipIf(servers.missing(kind))(
      `${kind}: an answer link used twice at once over HTTP answers once: one 200, one 410`,
      async () => {
        const backend = await sharedStores(kind, 'hostile-link', 2, servers.urls[kind]);
        try {
          const agent = inventoryAgent({ secret: SECRET });
          const workers = await Promise.all(
            backend.stores.map((store) => serve(createHandler({ agent, store, token: TOKEN }))),
          );
          const json = { 'content-type': 'application/json' };
          const started = await call(workers[0]!, 'POST', '/runs', '{"input":"thaw"}', {
            ...bearer,
            ...json,
          });
          const sessions = createSessions({ agent, store: backend.stores[0]! });
          const link = await sessions.answerLink(started.body.runId, started.body.pending[0].id, {
            ttlMs: 600_000,
          });
          const uses = await Promise.all(
            workers.map((worker, index) =>
              call(
                worker,
                'POST',
                `/interactions/${link}`,
                JSON.stringify({ answers: { 'Cell lines': [index === 0 ? 'K562' : 'HeLa'] } }),
                json,
              ),
            ),
          );
          expect(uses.map((use) => use.status).sort()).toEqual([200, 410]);
          const refused = uses.find((use) => use.status === 410)!;
          expect(refused.body).toMatchObject({
            code: 'LINK_INVALID',
            detail: expect.stringMatching(/used already/),
          });
          const winner = uses.find((use) => use.status === 200)!;
          const run = await call(workers[1]!, 'GET', `/runs/${started.body.runId}`, undefined, bearer);
          expect(run.body.version).toBe(winner.body.version);
          expect(run.body.pending[0].kind).toBe('approval');
          // The approval names the one answer that won.
          expect(run.body.pending[0].payload.input.cellLines).toEqual(['K562']);
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});

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
