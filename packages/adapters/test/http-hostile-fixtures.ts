/**
 * What the hostile-request tests of the stop, fork, inbox and answer-link routes share (DESIGN §13,
 * §20–§21): a handler behind a token and `authorize` with one paused run of ada's and an answer link
 * to it, what a client sees of that run (unchanged by every refused request), and requests over
 * real HTTP.
 */
import { createSessions, memoryStore } from '@turnkit/core';
import { expect } from 'vitest';
import { createHandler, type HandlerOptions, type RouteInfo } from '../src/http/public.js';
import { findServers } from './helpers/lease-stores.js';
import { inventoryAgent, type Listening, listen, SECRET, send } from './http-fixtures.js';

export const TOKEN = 'api-token-0123456789abcdef';
export const bearer = { authorization: `Bearer ${TOKEN}` };
export const ada = { ...bearer, 'x-user': 'ada' };
export const answerK562 = { answers: { 'Cell lines': ['K562'] } };
export const servers = findServers();
export const STORES = ['memory', 'file', 'redis', 'postgres'] as const;

/** `authorize` naming callers by `x-user` (none: refused), recording what it was asked about. */
export function byUser(asked: RouteInfo[]) {
  return (request: Request, route: RouteInfo) => {
    asked.push(route);
    const user = request.headers.get('x-user');
    return user ? { principal: user } : false;
  };
}

/** A handler with a token and `authorize`, one run of ada's waiting on its question, and a link to it. */
export async function paused(options: Partial<HandlerOptions> = {}) {
  const asked: RouteInfo[] = [];
  const agent = inventoryAgent({ secret: SECRET });
  const store = memoryStore();
  const handler = createHandler({ agent, store, token: TOKEN, authorize: byUser(asked), ...options });
  const started = (await send(handler, 'POST', '/runs', { input: 'thaw' }, ada)).body;
  const sessions = createSessions({ agent, store });
  const link = await sessions.answerLink(started.runId, started.pending[0].id, { ttlMs: 600_000 });
  return { handler, asked, runId: started.runId as string, link };
}

/** A handler with one paused run and its link (see {@link paused}). */
export type Paused = Awaited<ReturnType<typeof paused>>;

/** What a client sees of the run and of ada's inbox: unchanged by every refused request. */
export async function storedState({ handler, runId }: Paused) {
  const run = (await send(handler, 'GET', `/runs/${runId}`, undefined, ada)).body;
  const inbox = (await send(handler, 'GET', '/interactions', undefined, ada)).body;
  return { status: run.status, version: run.version, pending: run.pending, inbox: inbox.items };
}

/** Expects the link to answer still (no refused request spent it). */
export async function linkStillAnswers({ handler, link }: Paused) {
  // Any signed-in caller may use a link (this app's `authorize` wants someone), without the token.
  const used = await send(handler, 'POST', `/interactions/${link}`, answerK562, { 'x-user': 'lab-manager' });
  expect(used.status).toBe(200);
  expect(used.body.pending[0].kind).toBe('approval');
}

/** A request over real HTTP: status, headers and the parsed body (null when empty). */
export async function call(
  server: Listening,
  method: string,
  path: string,
  body?: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response bodies.
): Promise<{ status: number; headers: Headers; body: any }> {
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (body !== undefined) init.body = body;
  if (body instanceof ReadableStream) init.duplex = 'half';
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const open: Listening[] = [];

/** Serves `handler` on a free port until {@link closeServers}. */
export async function serve(handler: (request: Request) => Promise<Response>): Promise<Listening> {
  const server = await listen(handler);
  open.push(server);
  return server;
}

/** Closes every server {@link serve} opened (a test file's `afterEach`). */
export async function closeServers(): Promise<void> {
  await Promise.all(open.splice(0).map((server) => server.close()));
}
