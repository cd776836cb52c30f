/**
 * The contract `aiSdkProtocol()` relies on: `aiSdkMount` behind a host that
 * checked the bearer token itself, at the host's path, asking `authorize` on its own and handing
 * each turn's result to `onSettled` (the host's event hub).
 */
import { memoryStore, TurnkitError } from '@turnkit/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { RouteInfo } from '../src/http/public.js';
import { turnkitSendAutomaticallyWhen } from '../src/protocols/ai-sdk-ui/client.js';
import { aiSdkMount } from '../src/protocols/ai-sdk-ui/handler.js';
import { aiSdkHandler } from '../src/protocols/ai-sdk-ui/index.js';
import {
  AI_VERSIONS,
  answer,
  chatServers,
  decide,
  makeChat,
  partByType,
  say,
  turnkitOf,
} from './helpers/ai-sdk-chat.js';
import { inventoryAgent } from './http-fixtures.js';

const open = chatServers();

describe('aiSdkMount: the route createHandler mounts', () => {
  it('plays behind a host that checked the token, asking authorize itself and reporting each result', async () => {
    const routes: RouteInfo[] = [];
    const settled: string[] = [];
    const thawed: string[][] = [];
    const chat = aiSdkMount(
      {
        agent: inventoryAgent({ thawed }),
        store: memoryStore(),
        basePath: '/api/chat',
        authorize: (_request, route) => {
          routes.push(route);
          return { principal: 'ada' };
        },
      },
      { onSettled: (result) => settled.push(result.status) },
    );
    const host = new Hono();
    host.use('*', async (c, next) => {
      if (c.req.header('authorization') !== 'Bearer host-token') return c.text('no', 401);
      await next();
    });
    host.all('/api/chat', (c) => chat(c.req.raw));
    host.all('/api/chat/*', (c) => chat(c.req.raw));
    const server = await open((request) => Promise.resolve(host.fetch(request)));

    const { ai } = AI_VERSIONS[1];
    const front = makeChat(ai, {
      api: `${server.url}/api/chat`,
      id: 'mounted',
      headers: { authorization: 'Bearer host-token' },
      sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
    });
    await say(front, server, 'Thaw one');
    await answer(front, server, partByType(front, 'tool-AskUserQuestion').toolCallId, { answers: ['K562'] });
    await decide(front, server, partByType(front, 'tool-thaw_vials').approval.id, true);
    expect(turnkitOf(front).status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
    expect(settled).toEqual(['needs_input', 'needs_input', 'completed']);
    expect(routes).toEqual(Array(3).fill({ name: 'aiSdk', runId: 'mounted' }));

    const read = await fetch(`${server.url}/api/chat/mounted`, {
      headers: { authorization: 'Bearer host-token' },
    });
    expect((await read.json()).at(-1).metadata.turnkit.status).toBe('completed');
    expect((await fetch(`${server.url}/api/chat/mounted`)).status).toBe(401);
  });

  it('names aiSdkHandler in the errors of options that cannot work', () => {
    const agent = inventoryAgent();
    const refused = (options: Parameters<typeof aiSdkHandler>[0]) => {
      try {
        aiSdkHandler(options);
      } catch (error) {
        return TurnkitError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'built';
    };
    expect(refused({ agent, store: memoryStore(), token: 'a b' })).toMatch(
      /^CONFIG_INVALID: aiSdkHandler: `token`/,
    );
    expect(refused({ agent })).toMatch(/^CONFIG_INVALID: aiSdkHandler without a store/);
    expect(refused({ agent, store: memoryStore(), basePath: 'chat' })).toMatch(/aiSdkHandler: basePath/);
  });
});
