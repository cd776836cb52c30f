import { defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RouteInfo } from '../src/http/public.js';
import { agUiHandler } from '../src/protocols/ag-ui/index.js';
import { resolveOptions } from '../src/protocols/ag-ui/options.js';
import { agUiRoute } from '../src/protocols/ag-ui/route.js';
import {
  client,
  closeServers,
  inventoryAgent,
  post,
  serveAgUi,
  startBody as start,
  typesOf,
} from './helpers/ag-ui-fixtures.js';
import { listen } from './http-fixtures.js';

afterEach(closeServers);

describe('access', () => {
  it('checks the bearer token first, then asks authorize about route agUi with the thread id', async () => {
    const routes: RouteInfo[] = [];
    const url = await serveAgUi({
      agent: inventoryAgent(),
      store: memoryStore(),
      token: 'tk-test-token',
      authorize: (request, route) => {
        routes.push(route);
        const user = request.headers.get('x-user');
        return user ? { principal: user } : false;
      },
    });
    const bearer = { authorization: 'Bearer tk-test-token' };
    expect((await post(url, start('thread-auth'))).status).toBe(401);
    expect((await post(url, start('thread-auth'), bearer)).status).toBe(401);
    expect((await post(url, '{broken', bearer)).status).toBe(401);

    const alice = client(url, 'thread-auth', undefined, { ...bearer, 'x-user': 'alice' });
    await alice.run();
    expect(routes.at(-1)).toEqual({ name: 'agUi', runId: 'thread-auth' });
    expect(alice.agent.pendingInterrupts).toHaveLength(1);
    // Another principal finds no such thread, whether it starts, reads or resumes it.
    const mallory = { ...bearer, 'x-user': 'mallory' };
    expect(await post(url, start('thread-auth'), mallory)).toMatchObject({
      status: 404,
      problem: { code: 'RUN_NOT_FOUND' },
    });
    const resume = [{ interruptId: alice.agent.pendingInterrupts[0]!.id, status: 'cancelled' }];
    expect((await post(url, start('thread-auth', { resume }), mallory)).status).toBe(404);
  });

  it('hides a bound thread from a guest (authorize returned true): it can neither read nor resume it', async () => {
    const url = await serveAgUi({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request) => {
        const user = request.headers.get('x-user');
        return user ? { principal: user } : true;
      },
    });
    const alice = client(url, 'thread-guest', undefined, { 'x-user': 'alice' });
    await alice.run();
    const resume = [{ interruptId: alice.agent.pendingInterrupts[0]!.id, status: 'cancelled' }];
    for (const body of [start('thread-guest'), start('thread-guest', { resume })]) {
      expect(await post(url, body)).toMatchObject({ status: 404, problem: { code: 'RUN_NOT_FOUND' } });
    }
  });

  it('answers CORS preflights when asked to', async () => {
    const handler = agUiHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      cors: { origins: ['https://app.example'] },
    });
    const preflight = await handler(
      new Request('http://test.local/ag-ui', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      }),
    );
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('refuses options that cannot work, naming agUiHandler', () => {
    expect(() => agUiHandler({ agent: inventoryAgent() })).toThrow(/agUiHandler without a store/);
    expect(() => agUiHandler({ agent: inventoryAgent(), store: memoryStore(), token: 'a b' })).toThrow(
      /^agUiHandler: `token` contains whitespace/,
    );
  });
});

describe('options', () => {
  it("builds a new thread's context from its request, reports every event, and leaves out MESSAGES_SNAPSHOT", async () => {
    const whoami = defineTool({
      name: 'whoami',
      description: 'Who is asking.',
      input: z.object({}),
      execute: async (_input, ctx) => ctx.context,
    });
    const agent = defineAgent({
      name: 'who',
      instructions: 'You know who asks.',
      model: scriptedModel([
        { toolCalls: [{ name: 'whoami', arguments: {} }] },
        (request) => `You are ${request.messages.at(-1)?.content}`,
      ]),
      tools: [whoami],
    });
    const seen: string[] = [];
    const url = await serveAgUi({
      agent,
      store: memoryStore(),
      messages: false,
      context: (request) => ({ user: request.headers.get('x-user') }),
      onEvent: (event) => seen.push(event.type),
    });
    const lab = client(url, 'thread-who', undefined, { 'x-user': 'ada' });
    const done = await lab.run();
    expect(done.result).toBe('You are {"user":"ada"}');
    expect(typesOf(lab.events)).not.toContain('MESSAGES_SNAPSHOT');
    expect(seen).toContain('tool_finished');
    expect(seen.at(-1)).toBe('turn_completed');
  });
});

describe('the route createHandler mounts (agUiRoute)', () => {
  it('plays behind a host that checked the token, asking authorize itself and reporting each result', async () => {
    const routes: RouteInfo[] = [];
    const settled: string[] = [];
    const events: string[] = [];
    const config = resolveOptions({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (_request, route) => {
        routes.push(route);
        return { principal: 'ada' };
      },
      onEvent: (event) => events.push(event.type),
    });
    const route = agUiRoute({ ...config, onSettled: (result) => settled.push(result.status) });
    const host = new Hono();
    host.use('*', async (c, next) => {
      if (c.req.header('authorization') !== 'Bearer host-token') return c.text('no', 401);
      await next();
    });
    host.post('/api/ag-ui', (c) => route(c.req.raw));
    const server = await listen((request) => Promise.resolve(host.fetch(request)));
    try {
      const lab = client(`${server.url}/api/ag-ui`, 'thread-mounted', undefined, {
        authorization: 'Bearer host-token',
      });
      await lab.run();
      expect(lab.agent.pendingInterrupts).toHaveLength(1);
      expect(routes).toEqual([{ name: 'agUi', runId: 'thread-mounted' }]);
      expect(settled).toEqual(['needs_input']);
      expect(events.at(-1)).toBe('turn_paused');
    } finally {
      await server.close();
    }
  });
});
