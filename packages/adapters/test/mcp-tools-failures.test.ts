/**
 * `mcpTools` when the MCP server fails it: a server that disappears mid-call — before it answered
 * (HTTP), after its SSE stream opened (HTTP: the SDK alone would wait for its timeout), or by
 * exiting (stdio) — gives the model a `tool_error` at once, never a hung turn; a slow one a
 * `tool_timeout`. On a 2025-era connection the tools work but cannot pause.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { runTurn, type TurnResult } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpTools } from '../src/protocols/mcp/index.js';
import { labAgent, labServer } from './fixtures/mcp-lab.js';
import { listen } from './http-fixtures.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const stdioServer = fileURLToPath(new URL('./fixtures/mcp-stdio-server.ts', import.meta.url));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** The tool result the model read in a one-call run. */
function toolResult(result: TurnResult): { ok?: boolean; error_code?: string; message?: string } {
  const content = result.messages.find((message) => message.role === 'tool')?.content ?? '';
  return content.startsWith('{') ? JSON.parse(content) : { message: content };
}

/** The lab over loopback HTTP, whose `vanish` tool closes every connection and the server. */
async function vanishingLab() {
  let close: () => Promise<void> = async () => {};
  const handler = createMcpHandler(() => labServer(undefined, () => void close()));
  const server = await listen((request) => handler.fetch(request));
  close = server.close;
  cleanups.push(() => server.close());
  return `${server.url}/mcp`;
}

describe('mcpTools: an MCP server that disappears mid-call', () => {
  for (const [stream, when, message] of [
    [false, 'before its answer', /went away during the call to vanish \(fetch failed\)/],
    // The SDK only reports this one to onerror and lets the call wait for its timeout.
    [true, 'after its SSE stream opened', /went away mid-call: the response stream broke/],
  ] as const) {
    it(`gives a tool_error at once when an HTTP server goes away ${when}`, async () => {
      const tools = await mcpTools({ url: await vanishingLab() }, { timeoutMs: 30_000 });
      cleanups.push(() => tools.close());
      const started = Date.now();
      const result = await runTurn(labAgent(tools, 'vanish', { stream }), { input: 'Go' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.status).toBe('completed');
      expect(toolResult(result)).toMatchObject({ ok: false, error_code: 'tool_error' });
      expect(toolResult(result).message).toMatch(message);
    });
  }

  it('gives a tool_error when a stdio server exits mid-call, and the next call starts it again', async () => {
    const tools = await mcpTools({
      command: process.execPath,
      args: ['--import', 'tsx', stdioServer, 'modern'],
      cwd: packageRoot,
    });
    cleanups.push(() => tools.close());
    const crashed = await runTurn(labAgent(tools, 'vanish', { stream: true }), { input: 'Go' });
    expect(toolResult(crashed)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(crashed).message).toMatch(/went away/);

    const again = await runTurn(labAgent(tools, 'sleep', { ms: 1 }), { input: 'Nap' });
    expect(again.output).toBe('Tool said: slept 1');
  }, 30_000);

  it('gives a tool_timeout when the server does not answer within timeoutMs', async () => {
    const tools = await mcpTools({ url: await vanishingLab() }, { timeoutMs: 200 });
    cleanups.push(() => tools.close());
    const result = await runTurn(labAgent(tools, 'sleep', { ms: 3_000 }), { input: 'Nap' });
    expect(toolResult(result).error_code).toMatch(/^tool_(timeout|error)$/);
  });
});

describe('mcpTools on a 2025-era connection', () => {
  it('works with a TurnKit-made client, and a tool that asks for input fails instead of pausing', async () => {
    const tools = await mcpTools({
      command: process.execPath,
      args: ['--import', 'tsx', stdioServer, 'legacy'],
      cwd: packageRoot,
    });
    cleanups.push(() => tools.close());
    const plain = await runTurn(labAgent(tools, 'sleep', { ms: 1 }), { input: 'Nap' });
    expect(plain.output).toBe('Tool said: slept 1');
    const asking = await runTurn(labAgent(tools, tools.names.get('lab.deploy')!, { env: 'prod' }), {
      input: 'Deploy',
    });
    expect(asking.status).toBe('completed');
    expect(toolResult(asking)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult(asking).message).toContain('2025-era');
  }, 30_000);

  it('uses an application’s legacy client as it is (its own elicitation handler answers)', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await labServer().connect(serverSide);
    const client = new Client({ name: 'app', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('legacy');
    const tools = await mcpTools(client);
    const result = await runTurn(labAgent(tools, tools.names.get('lab.deploy')!, { env: 'staging' }), {
      input: 'Deploy',
    });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Tool said: deployed to staging (no note)');
  });
});
