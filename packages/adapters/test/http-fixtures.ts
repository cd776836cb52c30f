/**
 * Shared fixtures of the HTTP handler tests: a small LN2 inventory agent whose scripted model asks
 * one multi-select question, then asks to thaw the chosen vials (an approval), then reports; and a
 * helper that builds real `Request` objects.
 */

import { serve } from '@hono/node-server';
import { type Agent, askUserQuestion, defineAgent, defineTool, type ModelRequest } from '@turnkit/core';
// The package's vitest alias maps only `@turnkit/core` to source; its testing entry is reached by path.
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

export const SECRET = 'test-secret-that-is-at-least-32-characters-long';

export const cellLineQuestion = {
  question: 'Which cell lines should I thaw?',
  header: 'Cell lines',
  multiSelect: true,
  options: [
    { label: 'K562', description: 'Rack A, box 3' },
    { label: 'HeLa', description: 'Rack B, box 1' },
    { label: 'HEK293T', description: 'Rack B, box 4' },
  ],
};

/** The text of the last tool message of a request (what the previous step's tool returned). */
export function lastToolResult(request: ModelRequest): string {
  const tools = request.messages.filter((item) => item.role === 'tool');
  return tools.at(-1)?.content ?? '';
}

/** Options of {@link inventoryAgent}. */
export interface InventoryOptions {
  secret?: string;
  /** Delay of each model call, to hold a turn open (SSE, races). */
  delayMs?: number;
  questionTimeoutMs?: number;
  /** Every executed thaw is recorded here. */
  thawed?: string[][];
}

/** The scripted LN2 agent: question → approval → completed. */
export function inventoryAgent(options: InventoryOptions = {}): Agent {
  const thawVials = defineTool({
    name: 'thaw_vials',
    description: 'Thaw vials of the given cell lines.',
    input: z.object({ cellLines: z.array(z.string()), count: z.number().int().min(1) }),
    needsApproval: () => 'Thawing cannot be undone.',
    execute: (input) => {
      options.thawed?.push(input.cellLines);
      return { thawed: input.cellLines, count: input.count };
    },
  });
  const model = scriptedModel(
    [
      {
        text: 'Let me ask which lines you need.',
        toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [cellLineQuestion] } }],
      },
      {
        text: 'I will thaw them once you approve.',
        toolCalls: [{ name: 'thaw_vials', arguments: { cellLines: ['K562'], count: 1 } }],
      },
      (request) => `Done: ${lastToolResult(request)}`,
      'You are welcome.',
    ],
    { delayMs: options.delayMs ?? 0 },
  );
  return defineAgent({
    name: 'inventory',
    instructions: 'You manage an LN2 freezer.',
    model,
    tools: [
      thawVials,
      askUserQuestion(options.questionTimeoutMs ? { timeoutMs: options.questionTimeoutMs } : {}),
    ],
    ...(options.secret ? { snapshot: { secret: options.secret } } : {}),
  });
}

/** A JSON request to `path` (relative to http://test.local). */
export function jsonRequest(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Request {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  return new Request(`http://test.local${path}`, init);
}

/** Calls the handler and returns the status, headers and parsed JSON body. */
export async function send(
  handler: (request: Request) => Promise<Response>,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response bodies.
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await handler(jsonRequest(method, path, body, headers));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** A running `node:http` server (through `@hono/node-server`) around a handler. */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` on a free port of 127.0.0.1. */
export function listen(handler: (request: Request) => Promise<Response>): Promise<Listening> {
  return new Promise((resolve) => {
    const server = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise((done) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/** One parsed server-sent event. */
export interface SseEvent {
  event: string;
  id?: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary event data.
  data: any;
}

/**
 * Reads a `text/event-stream` body, yielding events and (as `event: 'comment'`) comment lines. A
 * consumer that stops early (`break`, `return()`) cancels the stream, as a client going away does.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const fields: Record<string, string> = {};
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) yield { event: 'comment', data: line.slice(1).trim() };
          const colon = line.indexOf(':');
          if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.data !== undefined) {
          yield { event: fields.event ?? 'message', id: fields.id, data: JSON.parse(fields.data) };
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Reads what a stream has queued right now, without waiting for more: the bytes a client that never
 * read would have left in the server's memory. Cancels the stream unless it had ended.
 */
export async function queuedBytes(
  body: ReadableStream<Uint8Array>,
): Promise<{ bytes: number; ended: boolean }> {
  const reader = body.getReader();
  let bytes = 0;
  for (;;) {
    const idle = new Promise<null>((resolve) => setImmediate(() => resolve(null)));
    const next = await Promise.race([reader.read(), idle]);
    if (next === null) {
      await reader.cancel();
      return { bytes, ended: false };
    }
    if (next.done) return { bytes, ended: true };
    bytes += next.value.byteLength;
  }
}

/**
 * Other spellings of an encrypted snapshot's `enc` member that lenient JSON would read as the same
 * (a space, keys reordered, an extra key, a padded iv, an escaped letter): each must be refused.
 */
export function respellings(snapshot: string): string[] {
  const cut = snapshot.indexOf(',"enc":');
  const enc = JSON.parse(snapshot).enc as Record<string, string>;
  const withEnc = (text: string) => `${snapshot.slice(0, cut)},"enc":${text}}`;
  return [
    withEnc(JSON.stringify(enc).replace('{', '{ ')),
    withEnc(JSON.stringify({ iv: enc.iv, alg: enc.alg, tag: enc.tag, ct: enc.ct })),
    withEnc(JSON.stringify({ ...enc, extra: true })),
    withEnc(JSON.stringify({ ...enc, iv: `${enc.iv}=` })),
    withEnc(JSON.stringify(enc).replace('"A256GCM"', '"\\u0041256GCM"')),
  ];
}

/** A JSON POST whose body is `stream`, sent without a Content-Length (chunked). */
export function streamingPost(url: string, stream: ReadableStream<Uint8Array>): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}
