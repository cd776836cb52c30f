/**
 * The MCP mount of `createHandler` gets the handler's options (DESIGN §15): in client-held mode its
 * `requestState` carries the encrypted snapshot when `encrypt` is on, `replay: 'reject'` lets one
 * `requestState` continue the run once, and `maxBodyBytes` bounds its requests.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler, type HandlerOptions, memoryReplayStore } from '../src/http/public.js';
import { type McpServerHandler, mcpProtocol } from '../src/protocols/mcp/index.js';
import { type ThawLog, thawAgent } from './fixtures/mcp-thaw-agent.js';
import { callOnce, closeClients, mcpClient, SECRET } from './helpers/mcp-clients.js';
import { streamingPost } from './http-fixtures.js';

afterEach(closeClients);

const start = { name: 'inventory', arguments: { message: 'Thaw one K562 vial' } };

/** A client of the MCP mount of a client-held handler built with `options`. */
async function mounted(log: ThawLog, options: Partial<HandlerOptions> = {}) {
  const handler = createHandler({
    agent: thawAgent(log),
    secret: SECRET,
    context: () => ({ apiKey: 'sk-context-secret' }),
    protocols: [mcpProtocol()],
    ...options,
  });
  const target = { fetch: (request: Request) => handler(request) } as McpServerHandler;
  return { handler, client: await mcpClient(target) };
}

/** Answers the question, then returns the approval's retry (its requestState and approving responses). */
async function upToApproval(client: Client) {
  const first = await callOnce(client, start);
  const [questionKey] = Object.keys(first.inputRequests ?? {});
  const approval = await callOnce(client, {
    ...start,
    inputResponses: { [questionKey!]: { action: 'accept', content: { q0: 'K562' } } },
    requestState: first.requestState,
  });
  const [approvalKey] = Object.keys(approval.inputRequests ?? {});
  return {
    requestState: approval.requestState!,
    retry: {
      ...start,
      inputResponses: { [approvalKey!]: { action: 'accept', content: { approved: true } } },
      requestState: approval.requestState,
    },
  };
}

/** Every readable text inside a requestState (its base64url parts, decoded). */
const decoded = (requestState: string) =>
  requestState
    .split('.')
    .map((part) => Buffer.from(part, 'base64url').toString('utf8'))
    .join('\n');

describe('the MCP mount in client-held mode', () => {
  it("carries the handler's encrypted snapshot in requestState: no transcript, no context in clear", async () => {
    const { client } = await mounted({ thawed: [] }, { encrypt: true });
    const { requestState } = await upToApproval(client);
    const text = decoded(requestState);
    expect(text).toContain('\\"enc\\":');
    for (const secretText of ['Thaw one K562 vial', 'sk-context-secret', 'Which K562 line']) {
      expect(text).not.toContain(secretText);
    }
  });

  it("with replay: 'reject', continues the run once per requestState: the approved tool runs once", async () => {
    const log: ThawLog = { thawed: [] };
    const { client } = await mounted(log, {
      encrypt: true,
      replay: 'reject',
      replayStore: memoryReplayStore(),
    });
    const { retry } = await upToApproval(client);
    const first = await callOnce(client, retry);
    expect(first.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562"}' }]);
    const again = await callOnce(client, retry);
    expect(again).toMatchObject({ isError: true });
    expect(JSON.stringify(again.content)).toMatch(/already used/);
    expect(log.thawed).toEqual(['K562']);
  });

  it("applies replay: 'reject' with the agent's own snapshot encryption too", async () => {
    const log: ThawLog = { thawed: [] };
    const agent = thawAgent(log);
    const { client } = await mounted(log, {
      agent: { ...agent, snapshot: { secret: SECRET, encrypt: true } },
      secret: undefined,
      replay: 'reject',
      replayStore: memoryReplayStore(),
    });
    const { retry } = await upToApproval(client);
    await callOnce(client, retry);
    await callOnce(client, retry);
    expect(log.thawed).toEqual(['K562']);
  });
});

describe('the MCP mount and maxBodyBytes', () => {
  it('refuses a body over the limit with 413, by Content-Length or by stopping the read', async () => {
    const { handler } = await mounted({ thawed: [] }, { maxBodyBytes: 4096 });
    const declared = await handler(
      new Request('http://in-process/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
        body: '{}',
      }),
    );
    expect(declared.status).toBe(413);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024).fill(32));
      },
    });
    const streamed = await handler(streamingPost('http://in-process/mcp', endless));
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(64 * 1024);
  });
});
