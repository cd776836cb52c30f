/**
 * `mcpServer` driven by the real MCP SDK client, in process (its Streamable HTTP transport with a
 * `fetch` into the handler) and over loopback HTTP, in both modes: the client's own
 * multi-round-trip loop (an elicitation handler) takes the agent through question → approval →
 * completion, and the tool with a side effect runs once.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpServer } from '../src/protocols/mcp/index.js';
import { type ThawLog, thawAgent } from './fixtures/mcp-thaw-agent.js';
import {
  callOnce,
  closeClients,
  type Elicitation,
  mcpClient,
  person,
  SECRET,
} from './helpers/mcp-clients.js';
import { listen } from './http-fixtures.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
  await closeClients();
});

const modes = {
  'client-held': () => ({ secret: SECRET }),
  store: () => ({ store: memoryStore(), secret: SECRET }),
};

describe.each(Object.keys(modes) as (keyof typeof modes)[])('mcpServer (%s)', (mode) => {
  const serve = (log: ThawLog, delayMs = 0) => mcpServer(thawAgent(log, delayMs), modes[mode]());

  it('lists the agent as one tool taking { message }', async () => {
    const client = await mcpClient(serve({ thawed: [] }));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'inventory',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
    expect(client.getProtocolEra()).toBe('modern');
  });

  it('an elicitation handler takes the agent through question → approval → completion; the tool runs once', async () => {
    const log: ThawLog = { thawed: [] };
    const asked: string[] = [];
    const client = await mcpClient(serve(log), { answer: person(asked) });

    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw one K562 vial' } });

    expect(asked).toEqual([
      'Which K562 line do you mean?',
      'Approve record_thaw?\nRemoves one vial of K562-dTAG from the inventory\nInput: {"cellLine":"K562-dTAG"}',
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562-dTAG"}' }]);
    expect(log.thawed).toEqual(['K562-dTAG']);
  });

  it('offers each question as a titled oneOf (an array for multi-select) plus a free-text field', async () => {
    const client = await mcpClient(serve({ thawed: [] }));
    const first = await callOnce(client, { name: 'inventory', arguments: { message: 'Thaw' } });
    const [request] = Object.values(first.inputRequests ?? {});
    expect(request?.params).toMatchObject({
      mode: 'form',
      requestedSchema: {
        type: 'object',
        properties: {
          q0: {
            type: 'string',
            title: 'Cell line',
            oneOf: [
              { const: 'K562', title: 'K562 — Parental line' },
              { const: 'K562-dTAG', title: 'K562-dTAG — Degron knock-in' },
            ],
          },
          q0_other: { type: 'string' },
        },
      },
    });
  });

  it('decline rejects an approval: the tool does not run and the agent is told', async () => {
    const log: ThawLog = { thawed: [] };
    const client = await mcpClient(serve(log), {
      answer: (params) =>
        'approved' in params.requestedSchema.properties
          ? { action: 'decline' }
          : { action: 'accept', content: { q0: 'K562' } },
    });
    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw one K562 vial' } });
    expect(log.thawed).toEqual([]);
    expect(JSON.stringify(result.content)).toContain('rejected_by_user');
  });

  it('cancel cancels a question: the model is told, nothing else asked', async () => {
    const asked: string[] = [];
    const client = await mcpClient(serve({ thawed: [] }), {
      answer: (params) => {
        asked.push(params.message);
        return { action: 'cancel' };
      },
    });
    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw' } });
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(result.content)).toContain('question_cancelled');
  });

  it('asks again, saying why, when an answer does not fit', async () => {
    const asked: string[] = [];
    const client = await mcpClient(serve({ thawed: [] }), {
      answer: (params) => {
        asked.push(params.message);
        if (asked.length === 1) return { action: 'accept', content: { q0: 'HeLa' } };
        return person([])(params);
      },
    });
    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw' } });
    expect(asked[1]).toMatch(/^Your answer was not accepted:\n.*"HeLa" is not an option/s);
    expect(result.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562-dTAG"}' }]);
  });

  it('works over loopback HTTP', async () => {
    const log: ThawLog = { thawed: [] };
    const handler = serve(log);
    const server = await listen((request) => handler.fetch(request));
    cleanups.push(() => server.close());
    const client = await mcpClient(`${server.url}/mcp`, { answer: person([], 'K562') });
    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw one K562 vial' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562"}' }]);
    expect(log.thawed).toEqual(['K562']);
  });
});

describe('mcpServer for 2025-era clients', () => {
  it('is driven through the SDK legacy shim on a connection that stays open', async () => {
    const log: ThawLog = { thawed: [] };
    const mcp = mcpServer(thawAgent(log), { secret: SECRET });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = await mcp.createServer();
    await server.connect(serverSide);
    const asked: string[] = [];
    const client = new Client({ name: 'old', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) =>
      person(asked)(request.params as Elicitation),
    );
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('legacy');

    const result = await client.callTool({ name: 'inventory', arguments: { message: 'Thaw one K562 vial' } });
    expect(asked).toHaveLength(2);
    expect(result.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562-dTAG"}' }]);
    expect(log.thawed).toEqual(['K562-dTAG']);
  });
});

describe('mcpServer configuration', () => {
  it('refuses to serve client-held runs without a secret of 32 characters', () => {
    const agent = thawAgent({ thawed: [] });
    expect(() => mcpServer(agent)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => mcpServer(agent, { secret: 'short' })).toThrow(/at least 32 characters/);
    expect(() => mcpServer(agent, { store: memoryStore(), name: 'no spaces' })).toThrow(/tool name/);
  });
});
