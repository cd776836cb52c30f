/**
 * The 1.x side of mcp-sdk1.test.ts: a real `@modelcontextprotocol/sdk` 1.x server (the SDK most MCP
 * users have) with a tool that answers, one with structured output, one that fails, a slow one and
 * one that asks the person through `elicitInput`; and 1.x clients connected to it in memory, with
 * or without an elicitation handler of the application's own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** What the 1.x server's tools did. */
export interface FreezerLog {
  moved: string[];
}

/**
 * A 1.x `McpServer` for the freezer: `freezer.find`, `freezer.count`, `freezer.jam`, `freezer.wait`,
 * `freezer.move`; and the handle of `freezer.find`, to take it away after a client listed it.
 */
export function freezerServer(log: FreezerLog): { server: McpServer; find: RegisteredTool } {
  const server = new McpServer({ name: 'freezer', version: '1.4.0' }, { capabilities: { tools: {} } });
  const find = server.registerTool(
    'freezer.find',
    { description: 'Finds a vial by cell line.', inputSchema: { cellLine: z.string() } },
    async ({ cellLine }) => ({ content: [{ type: 'text', text: `${cellLine} is in rack 3, box B2` }] }),
  );
  server.registerTool(
    'freezer.count',
    {
      description: 'Counts the vials of a cell line.',
      inputSchema: { cellLine: z.string() },
      outputSchema: { cellLine: z.string(), vials: z.number() },
    },
    async ({ cellLine }) => ({
      content: [{ type: 'text', text: `${cellLine}: 4 vials` }],
      structuredContent: { cellLine, vials: 4 },
    }),
  );
  server.registerTool('freezer.jam', { description: 'Always jams.' }, async () => ({
    content: [{ type: 'text', text: 'the drawer is jammed: call facilities' }],
    isError: true,
  }));
  server.registerTool(
    'freezer.wait',
    { description: 'Waits for the door.', inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `waited ${ms}` }] };
    },
  );
  server.registerTool(
    'freezer.move',
    { description: 'Moves a vial after the person confirms.', inputSchema: { vial: z.string() } },
    async ({ vial }) => {
      // The 2025 way: a request to the client while the call is open.
      const answer = await server.server.elicitInput({
        message: `Move ${vial} to the -150 freezer?`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Confirm' } },
          required: ['confirm'],
        },
      });
      if (answer.action !== 'accept' || answer.content?.confirm !== true) {
        return { content: [{ type: 'text', text: `not moved (${answer.action})` }], isError: true };
      }
      log.moved.push(vial);
      return { content: [{ type: 'text', text: `moved ${vial}` }] };
    },
  );
  return { server, find };
}

const closers: Array<() => Promise<unknown>> = [];
/** `freezer.find` on the server of each client of {@link sdk1Client}. */
const finds = new WeakMap<Client, RegisteredTool>();

/** Takes `freezer.find` off the server of `client` (after it was listed): calls of it are then refused. */
export function removeFind(client: Client): void {
  finds.get(client)!.remove();
}

/** Closes every client and server opened since the last call. */
export async function closeSdk1(): Promise<void> {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
}

/**
 * A 1.x `Client` connected in memory to a fresh {@link freezerServer}. With `answer`, the client
 * declares elicitation and answers it with its own handler, as an application would.
 */
export async function sdk1Client(
  log: FreezerLog,
  answer?: (message: string) => ElicitResult,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const { server, find } = freezerServer(log);
  await server.connect(serverSide);
  const client = new Client(
    { name: 'lab-app', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message));
  }
  await client.connect(clientSide);
  finds.set(client, find);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}
