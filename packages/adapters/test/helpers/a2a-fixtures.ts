/**
 * Fixtures of the A2A tests: a TurnKit handler with `a2aProtocol()` served on a loopback port, the
 * real `@a2a-js/sdk` clients (1.0 through `ClientFactory`, 0.3 through the compat layer's
 * `LegacyJsonRpcTransport`), messages as the SDK types them, and raw JSON-RPC posts for what a
 * well-behaved client would never send.
 */
import { type Message, type Part, Role, type SendMessageRequest } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { createHandler, type HandlerOptions } from '../../src/http/public.js';
import { a2aProtocol } from '../../src/protocols/a2a/index.js';
import { connect, fetchWithHeaders } from '../../src/protocols/a2a/remote.js';
import { type Listening, listen } from '../http-fixtures.js';

const servers: Listening[] = [];

/** Closes every server the test opened. */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** Serves `createHandler(options)` with A2A mounted; returns its base URL. */
export async function serveA2a(options: Omit<HandlerOptions, 'protocols'>): Promise<string> {
  const handler = createHandler({
    ...options,
    protocols: [a2aProtocol({ card: { description: 'Manages an LN2 freezer.' } })],
  });
  const server = await listen(handler);
  servers.push(server);
  return server.url;
}

/** The SDK's 1.0 client of the agent at `url`, from its card (made as `a2aAgentTool` makes its own). */
export function a2aClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  return connect({ url, headers, pollMs: 100 });
}

/** The compat layer's 0.3 JSON-RPC transport (`message/send`, `tasks/get`…). */
export function legacyClient(url: string, headers: Record<string, string> = {}): LegacyJsonRpcTransport {
  return new LegacyJsonRpcTransport({ endpoint: `${url}/a2a`, fetchImpl: fetchWithHeaders(fetch, headers) });
}

export const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

let counter = 0;

/** A user message (to `taskId` when it continues a task). */
export function message(parts: Part[], taskId = ''): SendMessageRequest {
  const body: Message = {
    messageId: `m-${++counter}`,
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message: body, configuration: undefined, metadata: undefined };
}

/** POSTs a raw JSON-RPC body (a string as is) to the endpoint; returns the status and parsed JSON. */
export async function rpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON-RPC answers.
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const raw = await response.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {}
  return { status: response.status, body: parsed };
}

/** The pending interactions a paused task's status message carries as data. */
// biome-ignore lint/suspicious/noExplicitAny: tests read the DataPart as sent.
export function pendingOf(task: { status?: { message?: Message | undefined } | undefined }): any[] {
  const part = task.status?.message?.parts.find((item) => item.content?.$case === 'data');
  return part?.content?.$case === 'data' ? part.content.value.pending : [];
}

/** The text of a paused task's status message. */
export function statusText(task: { status?: { message?: Message | undefined } | undefined }): string {
  const part = task.status?.message?.parts.find((item) => item.content?.$case === 'text');
  return part?.content?.$case === 'text' ? part.content.value : '';
}
