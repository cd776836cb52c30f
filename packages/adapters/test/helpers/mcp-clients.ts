/**
 * SDK clients for the `mcpServer` tests: on the 2026-07-28 era, in process (a `fetch` into the
 * handler, with an optional principal) or over HTTP; with an elicitation handler (the client's own
 * multi-round-trip loop) or without (each `input_required` returned to the test); and, for the
 * `mcpTools` tests, a client connected in memory to a server of the test's own.
 */
import { Client, type ElicitResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, type McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpServerHandler } from '../../src/protocols/mcp/index.js';

/** Clients (and in-memory servers) opened here; {@link closeClients} closes them. */
const opened: { close(): Promise<unknown> }[] = [];

/** Closes every client (and in-memory server) opened since the last call. */
export async function closeClients(): Promise<void> {
  await Promise.allSettled(opened.splice(0).map((client) => client.close()));
}

/** One `tools/call` that returns an `input_required` answer as it is. */
export function callOnce(client: Client, params: Record<string, unknown>) {
  return client.request(
    { method: 'tools/call', params: params as { name: string } },
    { allowInputRequired: true },
  ) as Promise<
    Record<string, unknown> & {
      requestState?: string;
      inputRequests?: Record<string, { params: Elicitation }>;
    }
  >;
}

/** The signing secret of the servers under test. */
export const SECRET = 'mcp-test-secret-that-is-32-chars-long';
/** An elicitation's params as the tests read them. */
export type Elicitation = {
  message: string;
  requestedSchema: { properties: Record<string, Record<string, unknown>> };
};
/** How a test's person answers an elicitation. */
export type Answer = (params: Elicitation) => ElicitResult;

/** An SDK client on the 2026-07-28 era whose elicitation handler is `answer` (none: it fulfils nothing). */
export async function mcpClient(
  target: McpServerHandler | string,
  options: { answer?: Answer; principal?: string } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: { form: {} } },
      ...(options.answer ? {} : { inputRequired: { autoFulfill: false } }),
    },
  );
  const { answer } = options;
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => answer(request.params as Elicitation));
  }
  const transport =
    typeof target === 'string'
      ? new StreamableHTTPClientTransport(new URL(target))
      : new StreamableHTTPClientTransport(new URL('http://in-process/mcp'), {
          fetch: (url, init) => target.fetch(new Request(url, init), { principal: options.principal }),
        });
  await client.connect(transport);
  opened.push(client);
  return client;
}

/** Answers the question with `label` and approves, recording what was asked. */
export function person(asked: string[], label = 'K562-dTAG'): Answer {
  return (params): ElicitResult => {
    asked.push(params.message);
    if ('approved' in params.requestedSchema.properties) {
      return { action: 'accept', content: { approved: true, reason: 'ok by the PI' } };
    }
    return { action: 'accept', content: { q0: label } };
  };
}

/**
 * A client on the 2026-07-28 era connected in memory to the servers `make` builds (through the
 * era-deciding `serveStdio` entry); {@link closeClients} closes both sides.
 */
export async function inMemoryClient(make: () => McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const served = serveStdio(make, { transport: serverSide });
  const client = new Client(
    { name: 'test', version: '1' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(clientSide);
  opened.push(client, served);
  return client;
}
