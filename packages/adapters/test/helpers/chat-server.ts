/**
 * A tiny chat-completions server on 127.0.0.1 for the OpenAI adapter tests: each test sets how it
 * answers, and every request it received is recorded so tests can check what the client sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** How the server answers a request. */
export type Responder = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

/** A running test server. */
export interface ChatServer {
  baseURL: string;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Resolves when the client closed a response before the server ended it (an abort). */
  clientClosed: Promise<void>;
  close(): Promise<void>;
}

/** Starts the server on an ephemeral loopback port. */
export async function startChatServer(): Promise<ChatServer> {
  const openResponses = new Set<ServerResponse>();
  let markClientClosed: () => void = () => undefined;
  const state: ChatServer = {
    baseURL: '',
    requests: [],
    respond: (_request, response) => sendJson(response, 500, { error: { message: 'no responder set' } }),
    clientClosed: new Promise<void>((resolve) => {
      markClientClosed = resolve;
    }),
    close: async () => {
      for (const response of openResponses) response.destroy();
      // fetch keeps a spare idle connection after an abort; close() alone would wait ~4 s for it.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  const server: Server = createServer(async (incoming, response) => {
    openResponses.add(response);
    response.on('close', () => {
      openResponses.delete(response);
      if (!response.writableEnded) markClientClosed();
    });
    let text = '';
    for await (const chunk of incoming) text += chunk;
    const request: ReceivedRequest = {
      method: incoming.method ?? '',
      url: incoming.url ?? '',
      headers: incoming.headers,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
    state.requests.push(request);
    await state.respond(request, response);
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** Answers with a JSON body. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Starts an SSE response; returns a writer for `data:` events. */
export function startSse(response: ServerResponse): { send(data: unknown): void; done(): void } {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  return {
    send: (data) => response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
    done: () => {
      response.write('data: [DONE]\n\n');
      response.end();
    },
  };
}

/** Sends every chunk, then `[DONE]`. */
export function sendSse(response: ServerResponse, chunks: unknown[]): void {
  const sse = startSse(response);
  for (const chunk of chunks) sse.send(chunk);
  sse.done();
}

/** A chat.completion.chunk with one choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** The final usage-only chunk sent when `stream_options.include_usage` is set. */
export function usageChunk(promptTokens: number, completionTokens: number): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** A non-streamed chat.completion. */
export function completion(
  message: Record<string, unknown>,
  usage?: { prompt_tokens: number; completion_tokens: number },
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  };
}
