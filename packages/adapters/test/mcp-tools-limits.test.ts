/**
 * `mcpTools` against a hostile or careless MCP server (the real SDK server, in process): a result
 * larger than `maxResultBytes` reaches the transcript cut on a character boundary with a note to the
 * model, and an `input_required` round with more than `maxElicitations` elicitations ends the call
 * with a `tool_error` instead of pausing the run (issue 26).
 */
import { inputRequired, McpServer } from '@modelcontextprotocol/server';
import { provideInput, runTurn, type TurnResult } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpTools } from '../src/protocols/mcp/index.js';
import { labAgent } from './fixtures/mcp-lab.js';
import { closeClients, inMemoryClient } from './helpers/mcp-clients.js';

const MIB = 1024 * 1024;

afterEach(closeClients);

/** A server whose `dump` returns as much text as asked, and whose `survey` asks `count` things at once. */
function floodServer(): McpServer {
  const server = new McpServer({ name: 'flood', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'dump',
    { description: 'Returns text.', inputSchema: z.object({ text: z.string(), repeat: z.number() }) },
    async ({ text, repeat }) => ({ content: [{ type: 'text', text: `a${text.repeat(repeat)}` }] }),
  );
  server.registerTool(
    'dump_structured',
    { description: 'Returns structured content.', inputSchema: z.object({ repeat: z.number() }) },
    async ({ repeat }) => ({
      content: [{ type: 'text', text: 'see structuredContent' }],
      structuredContent: { rows: 'x'.repeat(repeat) },
    }),
  );
  server.registerTool(
    'survey',
    { description: 'Asks count questions at once.', inputSchema: z.object({ count: z.number() }) },
    async ({ count }, ctx) => {
      const responses = ctx.mcpReq.inputResponses as
        | Record<string, { content?: { value?: string } }>
        | undefined;
      if (!responses) {
        const form = { type: 'object' as const, properties: { value: { type: 'string' as const } } };
        const asks = Array.from({ length: count }, (_, index) => [
          `field${index}`,
          inputRequired.elicit({ message: `Field ${index}?`, requestedSchema: form }),
        ]);
        return inputRequired({ inputRequests: Object.fromEntries(asks) });
      }
      const values = Object.values(responses).map((response) => response.content?.value);
      return { content: [{ type: 'text', text: `got ${values.join(',')}` }] };
    },
  );
  return server;
}

const floodClient = () => inMemoryClient(floodServer);

/** What the model read as the result of the run's one tool call. */
function toolContent(result: TurnResult): string {
  return result.messages.find((message) => message.role === 'tool')?.content ?? '';
}

const byteLength = (text: string) => new TextEncoder().encode(text).byteLength;

describe('mcpTools: maxResultBytes', () => {
  it('cuts a 2 MiB result at 1 MiB on a character boundary and tells the model how big it was', async () => {
    const tools = await mcpTools(await floodClient());
    // 'a' then 2-byte 'é's: 1 MiB falls in the middle of one, so a byte cut would break it.
    const result = await runTurn(labAgent(tools, 'dump', { text: 'é', repeat: MIB }), { input: 'Dump' });
    expect(result.status).toBe('completed');
    const content = toolContent(result);
    const kept = `a${'é'.repeat(MIB / 2 - 1)}`;
    expect(byteLength(kept)).toBe(MIB - 1);
    expect(content.startsWith(kept)).toBe(true);
    const note = content.slice(kept.length);
    expect(note).not.toContain('é');
    expect(note).toMatch(/truncated/i);
    expect(note).toContain(`${2 * MIB + 1} bytes`);
    expect(note).toContain(`${MIB} bytes`);
    expect(note).toMatch(/ask for less/i);
  });

  it('leaves a result under the cap untouched', async () => {
    const tools = await mcpTools(await floodClient(), { maxResultBytes: 1000 });
    const result = await runTurn(labAgent(tools, 'dump', { text: '€', repeat: 333 }), { input: 'Dump' });
    expect(toolContent(result)).toBe(`a${'€'.repeat(333)}`); // 1 000 bytes exactly
  });

  it('cuts a structured result as the JSON text the model would read', async () => {
    const tools = await mcpTools(await floodClient(), { maxResultBytes: 100 });
    const result = await runTurn(labAgent(tools, 'dump_structured', { repeat: 500 }), { input: 'Dump' });
    const content = toolContent(result);
    expect(content.startsWith(`{"rows":"${'x'.repeat(91)}`)).toBe(true);
    expect(content).not.toContain('x'.repeat(92));
    expect(content).toMatch(/truncated/i);
    expect(content).toContain('511 bytes');
  });
});

describe('mcpTools: maxElicitations', () => {
  it('ends a call asking 17 things at once with a tool_error, and does not pause', async () => {
    const tools = await mcpTools(await floodClient());
    const result = await runTurn(labAgent(tools, 'survey', { count: 17 }), { input: 'Survey' });
    expect(result.status).toBe('completed');
    const read = JSON.parse(toolContent(result)) as { ok: boolean; error_code: string; message: string };
    expect(read).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(read.message).toMatch(/asked for too many inputs at once: 17, where at most 16 are accepted/);
  });

  it('pauses for 16 at once: 16 input interactions, one after another, then the call completes', async () => {
    const tools = await mcpTools(await floodClient());
    const agent = labAgent(tools, 'survey', { count: 16 });
    let result = await runTurn(agent, { input: 'Survey' });
    const messages: unknown[] = [];
    while (result.status === 'needs_input') {
      const pending = result.pendingQuestion!;
      expect(pending.kind).toBe('input');
      messages.push((pending.payload as { message: string }).message);
      result = await provideInput(agent, result.snapshot, { value: { value: `v${messages.length}` } });
    }
    expect(messages).toEqual(Array.from({ length: 16 }, (_, index) => `Field ${index}?`));
    expect(result.output).toBe(`Tool said: got ${messages.map((_, index) => `v${index + 1}`).join(',')}`);
  });

  it('takes a lower cap as given', async () => {
    const tools = await mcpTools(await floodClient(), { maxElicitations: 2 });
    const result = await runTurn(labAgent(tools, 'survey', { count: 3 }), { input: 'Survey' });
    expect(toolContent(result)).toMatch(/too many inputs at once: 3, where at most 2/);
  });
});

describe('mcpTools: the caps are checked', () => {
  for (const [name, value] of [
    ['maxResultBytes', 0],
    ['maxResultBytes', 1.5],
    ['maxResultBytes', -1],
    ['maxElicitations', 0],
    ['maxElicitations', Number.NaN],
  ] as const) {
    it(`refuses ${name}: ${value} with CONFIG_INVALID`, async () => {
      await expect(mcpTools(await floodClient(), { [name]: value })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(`${name} must be a positive integer`),
      });
    });
  }
});
