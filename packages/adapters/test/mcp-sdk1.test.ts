/**
 * `mcpTools` on an application `Client` of `@modelcontextprotocol/sdk` 1.x (DESIGN §25), passed as
 * is (no cast): its tools are listed and called through the 1.x client's own `listTools` and
 * `callTool`, against a real 1.x server in memory and the v2 lab server over loopback HTTP. A 1.x
 * client speaks a 2025 era, so a server's request for input goes to the application's own
 * elicitation handler, or fails the tool: the run never pauses for it. `@modelcontextprotocol/client`
 * (v2) cannot be loaded in this file — as for a 1.x user who never installed it.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { runTurn, TurnkitError, type TurnResult } from '@turnkit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mcpTools } from '../src/protocols/mcp/index.js';
import { labAgent, labServer } from './fixtures/mcp-lab.js';
import { listen } from './http-fixtures.js';
import { closeSdk1, type FreezerLog, removeFind, sdk1Client } from './mcp-sdk1-fixtures.js';

vi.mock('@modelcontextprotocol/client', () => {
  throw new Error("Cannot find package '@modelcontextprotocol/client'");
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled([...cleanups.splice(0).map((cleanup) => cleanup()), closeSdk1()]);
});

/** The tool result the model read in a one-call run. */
function toolResult(result: TurnResult): { ok?: boolean; error_code?: string; message?: string } {
  const content = result.messages.find((message) => message.role === 'tool')?.content ?? '';
  return content.startsWith('{') ? JSON.parse(content) : { message: content };
}

const freezer = (): FreezerLog => ({ moved: [] });

describe('mcpTools on a @modelcontextprotocol/sdk 1.x Client', () => {
  it('lists the tools with their schemas as given, and calls one: the model reads its text', async () => {
    const client = await sdk1Client(freezer());
    const tools = await mcpTools(client);
    expect([...tools.names]).toEqual([
      ['freezer.find', 'freezer_find'],
      ['freezer.count', 'freezer_count'],
      ['freezer.jam', 'freezer_jam'],
      ['freezer.wait', 'freezer_wait'],
      ['freezer.move', 'freezer_move'],
    ]);
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'freezer.find')!;
    const { $schema: _drop, ...given } = listed.inputSchema;
    const find = tools.find((tool) => tool.name === 'freezer_find')!;
    expect(find.spec.function.parameters).toEqual(given);
    expect(find.spec.function.description).toBe('Finds a vial by cell line.');

    const result = await runTurn(labAgent(tools, 'freezer_find', { cellLine: 'K562' }), { input: 'Where?' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Tool said: K562 is in rack 3, box B2');
  });

  it('gives the model a structured result as JSON', async () => {
    const tools = await mcpTools(await sdk1Client(freezer()));
    const result = await runTurn(labAgent(tools, 'freezer_count', { cellLine: 'HeLa' }), { input: 'Count' });
    expect(result.output).toBe('Tool said: {"cellLine":"HeLa","vials":4}');
  });

  it('gives a tool_error with the server’s text for a result marked isError', async () => {
    const tools = await mcpTools(await sdk1Client(freezer()));
    const result = await runTurn(labAgent(tools, 'freezer_jam', {}), { input: 'Open it' });
    expect(result.status).toBe('completed');
    expect(toolResult(result)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(result).message).toContain('the drawer is jammed: call facilities');
  });

  it('gives a tool_error for a tool the server no longer has', async () => {
    const client = await sdk1Client(freezer());
    const tools = await mcpTools(client);
    removeFind(client); // listed, then gone: a 1.x server answers with an error result
    const result = await runTurn(labAgent(tools, 'freezer_find', { cellLine: 'K562' }), { input: 'Where?' });
    expect(toolResult(result)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(result).message).toMatch(/Tool freezer\.find not found/);
  });

  it('ends a call the server does not answer within timeoutMs', async () => {
    const tools = await mcpTools(await sdk1Client(freezer()), { timeoutMs: 200 });
    const started = Date.now();
    const result = await runTurn(labAgent(tools, 'freezer_wait', { ms: 3_000 }), { input: 'Wait' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(toolResult(result).error_code).toMatch(/^tool_(timeout|error)$/);
  });

  it('leaves the application’s client open on close', async () => {
    const client = await sdk1Client(freezer());
    const tools = await mcpTools(client);
    await tools.close();
    expect((await client.listTools()).tools).toHaveLength(5);
  });
});

describe('a server asking for input through a 1.x Client', () => {
  it('is answered by the application’s own elicitation handler, in the call: the run does not pause', async () => {
    const log = freezer();
    const asked: string[] = [];
    const tools = await mcpTools(
      await sdk1Client(log, (message) => {
        asked.push(message);
        return { action: 'accept', content: { confirm: true } };
      }),
    );
    const result = await runTurn(labAgent(tools, 'freezer_move', { vial: 'K562-7' }), { input: 'Move it' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Tool said: moved K562-7');
    expect(asked).toEqual(['Move K562-7 to the -150 freezer?']);
    expect(log.moved).toEqual(['K562-7']);
  });

  it('fails the tool when the client declared no elicitation: a tool_error, no pause, nothing done', async () => {
    const log = freezer();
    const tools = await mcpTools(await sdk1Client(log));
    const result = await runTurn(labAgent(tools, 'freezer_move', { vial: 'K562-7' }), { input: 'Move it' });
    expect(result.status).toBe('completed');
    expect(toolResult(result)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(result).message).toMatch(/elicitation/i);
    expect(log.moved).toEqual([]);
  });
});

describe('a 1.x Client of a 2026-07-28 server (v2, over loopback HTTP)', () => {
  /** The lab server; `ghost` is listed while `offerGhost` holds, and unknown to it after. */
  async function labOverHttp() {
    const state = { offerGhost: true };
    const handler = createMcpHandler(() => {
      const server = labServer({ deployed: [] });
      if (state.offerGhost) {
        server.registerTool('ghost', { description: 'Gone soon.' }, async () => ({ content: [] }));
      }
      return server;
    });
    const listening = await listen((request) => handler.fetch(request));
    cleanups.push(() => listening.close());
    const client = new Client({ name: 'lab-app', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listening.url}/mcp`)));
    cleanups.push(() => client.close());
    return { client, state };
  }

  it('calls its tools; one that answers input_required fails with the server’s refusal, no pause', async () => {
    const tools = await mcpTools((await labOverHttp()).client);
    const plain = await runTurn(labAgent(tools, 'sleep', { ms: 1 }), { input: 'Nap' });
    expect(plain.output).toBe('Tool said: slept 1');
    const asking = await runTurn(labAgent(tools, tools.names.get('lab.deploy')!, { env: 'prod' }), {
      input: 'Deploy',
    });
    expect(asking.status).toBe('completed');
    expect(toolResult(asking)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(asking).message).toMatch(/Cannot request input 'confirm'.*2025-era connection/);
  });

  it('says which server refused a call it answers with a JSON-RPC error, and its code', async () => {
    const { client, state } = await labOverHttp();
    const tools = await mcpTools(client);
    state.offerGhost = false;
    const result = await runTurn(labAgent(tools, 'ghost', {}), { input: 'Boo' });
    expect(toolResult(result)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(result).message).toMatch(
      /the MCP server lab refused the call to ghost \(-32602\): MCP error -32602: .*ghost/,
    );
  });
});

describe('mcpTools refuses at once what it cannot use', () => {
  const refusal = async (source: unknown) => {
    const error = await mcpTools(source as never).catch((caught: unknown) => caught);
    return TurnkitError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
  };

  it('an MCP server passed where a client goes, naming it and saying what to pass', async () => {
    const server = new McpServer({ name: 'freezer', version: '1' });
    expect(await refusal(server)).toMatch(
      /^CONFIG_INVALID: mcpTools: source is a McpServer with keys .* which is not an MCP client or a way to reach a server\. Pass a connected Client of @modelcontextprotocol\/client \(v2\) or @modelcontextprotocol\/sdk \(1\.x/,
    );
    expect(await refusal({ listTools: async () => ({ tools: [] }) })).toMatch(
      /^CONFIG_INVALID: .*an object with keys \["listTools"\]/,
    );
    expect(await refusal(undefined)).toMatch(/^CONFIG_INVALID: mcpTools: source is undefined/);
  });

  it('a 1.x Client that is not connected, as CONFIG_INVALID from its listing', async () => {
    const client = new Client({ name: 'lab-app', version: '1.0.0' });
    expect(await refusal(client)).toMatch(
      /^CONFIG_INVALID: mcpTools: listing the tools failed: Not connected/,
    );
  });
});
