/**
 * `createHandler({ protocols: [aiSdkProtocol(), agUiProtocol(), mcpProtocol()] })` (DESIGN §15, §18): the
 * three protocols mounted
 * beside the handler's routes, behind the same token, `authorize` (with the protocol's route name)
 * and store — a chat id, a thread id and a run id name the same run — each driven by its real
 * client: AI SDK's `AbstractChat`, AG-UI's `HttpAgent`, the MCP SDK's `Client`.
 */
import { buildResumeArray } from '@ag-ui/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { memoryStore } from '@turnkit/core';
import * as ai from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventHub, createHandler, type RouteInfo } from '../src/http/public.js';
import { agUiProtocol } from '../src/protocols/ag-ui/index.js';
import { turnkitSendAutomaticallyWhen } from '../src/protocols/ai-sdk-ui/client.js';
import { aiSdkProtocol } from '../src/protocols/ai-sdk-ui/index.js';
import { mcpProtocol } from '../src/protocols/mcp/index.js';
import { client as agUiClient, post } from './helpers/ag-ui-fixtures.js';
import { answer, decide, makeChat, partByType, say, serveChat, turnkitOf } from './helpers/ai-sdk-chat.js';
import { type Elicitation, person } from './helpers/mcp-clients.js';
import { inventoryAgent, type Listening, listen, send } from './http-fixtures.js';

const TOKEN = 'mount-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const servers: Listening[] = [];

const opened: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function mounted(thawed: string[][], routes: RouteInfo[] = []) {
  const hub = createEventHub();
  const handler = createHandler({
    agent: inventoryAgent({ thawed }),
    store: memoryStore(),
    basePath: '/api',
    token: TOKEN,
    authorize: (_request, route) => {
      routes.push(route);
      return { principal: 'user:ada' };
    },
    eventHub: hub,
    protocols: [
      aiSdkProtocol({ path: '/chat' }),
      agUiProtocol({ path: '/ag-ui' }),
      mcpProtocol({ path: '/mcp' }),
    ],
  });
  return { handler, hub };
}

describe('createHandler protocols', () => {
  it('serves useChat at /chat: question → approval → completed, the run readable at /runs/:id', async () => {
    const thawed: string[][] = [];
    const routes: RouteInfo[] = [];
    const { handler } = mounted(thawed, routes);
    const server = await serveChat(handler);
    servers.push(server);
    const chat = makeChat(ai, {
      api: `${server.url}/api/chat`,
      id: 'chat_1',
      headers: auth,
      sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
    });
    await say(chat, server, 'Thaw one vial');
    const question = turnkitOf(chat).pending[0]!;
    await answer(chat, server, question.toolCallId, { answers: { 'Cell lines': ['K562'] } });
    const approval = turnkitOf(chat).pending[0]!;
    expect(approval.kind).toBe('approval');
    await decide(chat, server, approval.id, true);
    expect(turnkitOf(chat).status).toBe('completed');
    expect(partByType(chat, 'tool-thaw_vials')?.state).toBe('output-available');
    expect(thawed).toEqual([['K562']]);
    expect(routes.some((route) => route.name === 'aiSdk' && route.runId === 'chat_1')).toBe(true);
    const run = await send(handler, 'GET', '/api/runs/chat_1', undefined, auth);
    expect(run.body).toMatchObject({ runId: 'chat_1', status: 'completed' });
  });

  it('serves AG-UI at /ag-ui, publishing each finished run to the handler’s event hub', async () => {
    const thawed: string[][] = [];
    const { handler, hub } = mounted(thawed);
    const states: unknown[] = [];
    hub.subscribe('thread_1', (message) => {
      if (message.event === 'state') states.push(message.data);
    });
    const listening = await listen(handler);
    servers.push(listening);
    const lab = agUiClient(`${listening.url}/api/ag-ui`, 'thread_1', undefined, auth);
    await lab.run();
    const [question] = lab.agent.pendingInterrupts;
    await lab.run({
      resume: buildResumeArray(lab.agent.pendingInterrupts, {
        [question!.id]: { status: 'resolved', payload: { answers: { 'Cell lines': ['K562'] } } },
      }),
    });
    const [approval] = lab.agent.pendingInterrupts;
    await lab.run({
      resume: buildResumeArray(lab.agent.pendingInterrupts, {
        [approval!.id]: { status: 'resolved', payload: { approved: true } },
      }),
    });
    expect(lab.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(thawed).toEqual([['K562']]);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states.at(-1)).toMatchObject({ runId: 'thread_1', status: 'completed' });
    expect((await send(handler, 'GET', '/api/runs/thread_1', undefined, auth)).body.status).toBe('completed');
  });

  it('serves the agent as an MCP tool at /mcp, the client answering its elicitations', async () => {
    const thawed: string[][] = [];
    const routes: RouteInfo[] = [];
    const { handler } = mounted(thawed, routes);
    const listening = await listen(handler);
    servers.push(listening);
    const asked: string[] = [];
    const answerAs = person(asked, 'K562');
    const client = new Client(
      { name: 'mount-test', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) =>
      answerAs(request.params as Elicitation),
    );
    // The token rides on every request of the transport, as any MCP client behind auth does.
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${listening.url}/api/mcp`), {
        requestInit: { headers: auth },
      }),
    );
    opened.push(client);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['inventory']);
    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw one vial' } });
    expect(result.isError).not.toBe(true);
    expect(asked).toHaveLength(2);
    expect(thawed).toEqual([['K562']]);
    expect(routes.some((route) => route.name === 'mcp')).toBe(true);
  });

  it('keeps every mount behind the token', async () => {
    const { handler } = mounted([]);
    for (const [method, path] of [
      ['POST', '/api/chat'],
      ['GET', '/api/chat/chat_1'],
      ['POST', '/api/ag-ui'],
      ['POST', '/api/mcp'],
    ] as const) {
      expect(
        (await send(handler, method, path, method === 'GET' ? undefined : {})).status,
        `${method} ${path}`,
      ).toBe(401);
    }
  });

  it('refuses mount paths that cannot work', () => {
    for (const protocols of [
      [aiSdkProtocol({ path: 'chat' })],
      [agUiProtocol({ path: '/runs' })],
      [aiSdkProtocol({ path: '/x' }), agUiProtocol({ path: '/x' })],
      [{ grpc: '/g' }],
    ]) {
      expect(() =>
        createHandler({ agent: inventoryAgent(), store: memoryStore(), protocols: protocols as never }),
      ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
  });

  it('refuses the object form of protocols with CONFIG_INVALID, showing the list of mounts to write', () => {
    const build = () =>
      createHandler({
        agent: inventoryAgent(),
        store: memoryStore(),
        protocols: { aiSdk: '/chat', mcp: '/mcp' } as never,
      });
    expect(build).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(build).toThrow(/protocols: \[aiSdkProtocol\(\{ path: '\/chat' \}\), agUiProtocol/);
  });

  it('mounts each protocol at its default path when none is given', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      protocols: [aiSdkProtocol(), agUiProtocol(), mcpProtocol()],
      onError: () => {},
    });
    // An empty body reaches each protocol's own checks (400), where an unmounted path is a 404.
    for (const path of ['/chat', '/ag-ui', '/mcp']) {
      expect((await send(handler, 'POST', path, {})).status, path).not.toBe(404);
    }
    expect((await send(handler, 'POST', '/nowhere', {})).status).toBe(404);
  });
});

describe('createHandler protocols and the event hub, under a race', () => {
  it('publishes only the turn that won its claim: two AG-UI decisions at once, the first to claim delayed', async () => {
    const thawed: string[][] = [];
    const inner = memoryStore();
    // Armed for the race: the first claim write waits, so the request that emitted its turn's
    // first events first is the one that loses the claim.
    let delayNext = false;
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'put' && key !== 'putParts') return value;
        return async (...args: unknown[]) => {
          if (delayNext) {
            delayNext = false;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const hub = createEventHub();
    const handler = createHandler({
      agent: inventoryAgent({ thawed }),
      store,
      basePath: '/api',
      token: TOKEN,
      eventHub: hub,
      protocols: [agUiProtocol({ path: '/ag-ui' })],
    });
    const listening = await listen(handler);
    servers.push(listening);
    const url = `${listening.url}/api/ag-ui`;
    const lab = agUiClient(url, 'thread_race', undefined, auth);
    await lab.run();
    const [question] = lab.agent.pendingInterrupts;
    await lab.run({
      resume: buildResumeArray(lab.agent.pendingInterrupts, {
        [question!.id]: { status: 'resolved', payload: { answers: { 'Cell lines': ['K562'] } } },
      }),
    });
    const approval = lab.agent.pendingInterrupts[0]!;

    const decisions: string[] = [];
    hub.subscribe('thread_race', (message) => {
      if (message.event === 'interaction_resolved')
        decisions.push((message.data as { decision: string }).decision);
    });
    const body = (approved: boolean) => ({
      threadId: 'thread_race',
      runId: `r-${approved}`,
      messages: lab.agent.messages,
      resume: [{ interruptId: approval.id, status: 'resolved', payload: { approved } }],
    });
    delayNext = true;
    const answers = await Promise.all([post(url, body(true), auth), post(url, body(false), auth)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);

    const run = await send(handler, 'GET', '/api/runs/thread_race', undefined, auth);
    const won = thawed.length === 1 ? 'approved' : 'rejected';
    expect(run.body.status).toBe('completed');
    // The hub heard the winner's decision, once; the loser's never reached it.
    expect(decisions).toEqual([won]);
  });
});
