/**
 * Stop is not disconnect (DESIGN §20, issue 31), over real HTTP on every mount that plays a turn:
 * the REST routes, the AI SDK UI mount (`/chat`), the AG-UI mount (`/ag-ui`) and the MCP mount
 * (`/mcp`). A client starts a turn whose tool is slow, then goes away while the tool runs (its
 * socket destroyed, or the MCP client closed); the turn goes on, is stored `completed`, the tool ran
 * once, and every tool call has exactly one tool result.
 */
import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandler } from '../src/http/public.js';
import { agUiProtocol } from '../src/protocols/ag-ui/index.js';
import { chunkStream } from '../src/protocols/ai-sdk-ui/chunks.js';
import { aiSdkProtocol } from '../src/protocols/ai-sdk-ui/index.js';
import { mcpProtocol } from '../src/protocols/mcp/index.js';
import { type Listening, listen, send } from './http-fixtures.js';

const servers: Listening[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A handler with every mount, whose agent calls one slow tool, then answers. */
async function mounted() {
  const calls: number[] = [];
  let markStarted: () => void = () => undefined;
  const toolStarted = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const runIds = new Set<string>();
  const slowCount = defineTool({
    name: 'slow_count',
    description: 'Counts slowly.',
    input: z.object({}),
    execute: async () => {
      calls.push(calls.length + 1);
      markStarted();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { counted: calls.length };
    },
  });
  const agent = defineAgent({
    name: 'counter',
    instructions: 'You count.',
    model: scriptedModel([
      { text: 'Counting.', toolCalls: [{ name: 'slow_count', arguments: {} }] },
      'Counted.',
    ]),
    tools: [slowCount],
    snapshot: { secret: 'disconnect-test-secret-at-least-32-characters' },
  });
  const handler = createHandler({
    agent,
    store: memoryStore(),
    onEvent: (event) => runIds.add(event.runId),
    protocols: [
      aiSdkProtocol({ path: '/chat' }),
      agUiProtocol({ path: '/ag-ui' }),
      mcpProtocol({ path: '/mcp' }),
    ],
  });
  const server = await listen(handler);
  servers.push(server);
  return { handler, server, calls, toolStarted, runIds };
}

/** POSTs `body` over a real socket, and destroys the socket once `toolStarted` resolves. */
async function postThenLeave(url: string, body: unknown, toolStarted: Promise<void>): Promise<void> {
  const request = httpRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
  });
  request.on('error', () => {});
  request.on('response', (response) => response.on('error', () => {}).resume());
  const closed = new Promise((resolve) => request.once('close', resolve));
  request.end(JSON.stringify(body));
  await toolStarted;
  // The client goes away mid-turn: a reload, a closed tab, a dropped connection.
  request.destroy();
  await closed;
}

/** Waits until the stored run rests, then checks it completed with one result per tool call. */
async function expectCompleted(
  handler: (request: Request) => Promise<Response>,
  runId: string,
  calls: number[],
): Promise<void> {
  const read = () => send(handler, 'GET', `/runs/${runId}`);
  await expect
    .poll(async () => (await read()).body.status, { timeout: 5000, interval: 50 })
    .toBe('completed');
  const { body } = await read();
  expect(calls).toEqual([1]);
  // biome-ignore lint/suspicious/noExplicitAny: a run's messages as the route answers them.
  const messages: any[] = body.messages;
  const callIds = messages.flatMap((message) =>
    (message.tool_calls ?? []).map((call: { id: string }) => call.id),
  );
  const resultIds = messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.tool_call_id);
  expect(callIds).toHaveLength(1);
  expect(resultIds).toEqual(callIds);
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Counted.' });
}

describe('a client that goes away mid-turn never stops the turn', () => {
  it('REST: POST /runs, socket destroyed while the tool runs → the run completes', async () => {
    const { handler, server, calls, toolStarted, runIds } = await mounted();
    await postThenLeave(`${server.url}/runs`, { input: 'Count.' }, toolStarted);
    const [runId] = [...runIds];
    await expectCompleted(handler, runId!, calls);
  });

  it('AI SDK UI (/chat): stream closed while the tool runs → the chat’s run completes', async () => {
    const { handler, server, calls, toolStarted } = await mounted();
    const body = {
      id: 'chat-leaves',
      trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Count.' }] }],
    };
    await postThenLeave(`${server.url}/chat`, body, toolStarted);
    await expectCompleted(handler, 'chat-leaves', calls);
  });

  it('AG-UI (/ag-ui): stream closed while the tool runs → the thread’s run completes', async () => {
    const { handler, server, calls, toolStarted } = await mounted();
    const body = {
      threadId: 'thread-leaves',
      runId: 'r1',
      messages: [{ id: 'u1', role: 'user', content: 'Count.' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    await postThenLeave(`${server.url}/ag-ui`, body, toolStarted);
    await expectCompleted(handler, 'thread-leaves', calls);
  });

  it('MCP (/mcp): client closed while the tool runs → the run completes', async () => {
    const { handler, server, calls, toolStarted, runIds } = await mounted();
    const client = new Client({ name: 'leaver', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const { tools } = await client.listTools();
    const calling = client
      .callTool({ name: tools[0]!.name, arguments: { message: 'Count.' } })
      .catch(() => null);
    await toolStarted;
    await client.close();
    await calling;
    const [runId] = [...runIds];
    await expectCompleted(handler, runId!, calls);
  });
});

describe('a cancelled UI message stream', () => {
  it('runs onCancel once, then takes pushes and close without throwing or queueing', async () => {
    const cancelled: string[] = [];
    const { response, push, close } = chunkStream(() => cancelled.push('cancel'));
    push({ type: 'start' });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"type":"start"}\n\n');
    await reader.cancel();
    expect(cancelled).toEqual(['cancel']);
    // The turn plays on and keeps writing: into nothing.
    expect(() => {
      push({ type: 'start-step' });
      push({ type: 'text-delta', id: 't1', delta: 'Counted.' });
      close();
      close();
    }).not.toThrow();
    expect(cancelled).toEqual(['cancel']);
  });
});
