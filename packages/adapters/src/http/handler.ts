/**
 * `createHandler`: a TurnKit agent behind a Web-standard `(Request) => Promise<Response>`, so the
 * same handler runs on Node (`@hono/node-server`), Cloudflare Workers, Deno, Bun, Vercel or AWS
 * Lambda. Built on Hono: CORS (when asked) → bearer token → route (by the raw path) → `authorize`
 * about that route → the route → problem details.
 */
import { TurnkitError, type TurnOptions } from '@turnkit/core';
import { Hono } from 'hono';
import { createEventHub, hubPublisher, type RequestOnEvent } from '../events/index.js';
import { callerPrincipal, corsPolicy, tokenGate } from './auth.js';
import type { RunBackend } from './backend.js';
import { assertSigning, clientHeldBackend, EVENTS_TOKEN_HEADER, withKeys } from './client-held.js';
import {
  checkCommonOptions,
  DEFAULT_REPLAY_TTL_MS,
  type FetchHandler,
  type HandlerOptions,
  refuseStoreOnlyOptions,
} from './options.js';
import { servedWithProblems } from './problem.js';
import { type HandlerEnv, registerRoutes } from './routes.js';
import { bodySchemas } from './schemas.js';
import { DEFAULT_MAX_QUEUED_BYTES } from './sse.js';
import { type StoreMode, storeMode } from './store-mode.js';

const defaultOnError = (error: unknown) => console.error('[turnkit/http]', error);

/**
 * The request's path exactly as sent, percent-encoding untouched. Hono decodes the path before
 * routing by default, so `/runs/ID/%61pprove` would reach the approve route; routing the raw path
 * means an encoded letter in a fixed segment matches nothing. (`:id` values are still decoded.)
 */
function rawPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = Math.min(query === -1 ? url.length : query, hash === -1 ? url.length : hash);
  return url.slice(start, end);
}

/**
 * Creates the HTTP handler of an agent.
 *
 * - **Store mode** (`store` given): runs live in the store; every request claims the run before it
 *   acts (core's `createSessions`), so concurrent requests can never both continue a run.
 * - **Client-held mode** (no `store`): each response carries the signed (or, with `encrypt`,
 *   encrypted) `snapshot`, which the client sends back in the next request's body, and the run's
 *   `eventsToken` for its event stream. Needs a `secret` (≥ 32 characters); refused without one.
 *   `replay: 'reject'` lets each snapshot resume once.
 *
 * Access: `token` first, then `authorize(request, { name, runId? })` about the matched route; a
 * `{ principal }` it returns binds the runs that caller starts. Failed model calls reach clients
 * only as their public message, and `onError` with the full error.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` when the options cannot work.
 *
 * @example
 * import { serve } from '@hono/node-server';
 * const handler = createHandler({ agent, store: fileStore('.turnkit/runs'), token: process.env.API_TOKEN });
 * serve({ fetch: handler, port: 8787 });
 */
export function createHandler(options: HandlerOptions): FetchHandler {
  return handlerWith(options, storeMode);
}

/**
 * Creates the HTTP handler of an agent in client-held mode only: {@link createHandler} without
 * store mode, so a bundle of it never holds core's sessions nor the store-only routes (about 11 kB min+gzip less in a
 * Workers bundle, DESIGN §18). The same options, routes and responses as `createHandler({ agent,
 * secret })`; use it where the client holds the run (Workers, Edge, Lambda), and `createHandler`
 * for a `store`.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` when given a `store` (or when the options cannot work, as
 * `createHandler` does).
 *
 * @example
 * export default { fetch: createClientHeldHandler({ agent, secret: env.TURNKIT_SECRET }) };
 */
export function createClientHeldHandler(options: HandlerOptions): FetchHandler {
  if (options.store) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'createClientHeldHandler: a `store` was given, but this handler is client-held only. Use `createHandler` from @turnkit/adapters/http for store mode, or leave `store` out.',
    );
  }
  return handlerWith(options, undefined);
}

/** The handler, with store mode handed in by the entry that offers it (none: client-held only, so neither sessions nor the store-only routes are referenced). */
function handlerWith(options: HandlerOptions, store: StoreMode | undefined): FetchHandler {
  const { basePath, maxBodyBytes } = checkCommonOptions(options);
  if (store) store.checkOptions(options);
  else refuseStoreOnlyOptions(options);
  const agent = withKeys(options.agent, options.secret, options.encrypt === true);
  let backend: RunBackend;
  if (options.store && store) {
    backend = store.backend(agent, options.store, options.leaseMs, options.onInteraction);
  } else {
    assertSigning(agent);
    const replay =
      options.replay === 'reject' && options.replayStore
        ? { store: options.replayStore, ttlMs: options.replayTtlMs ?? DEFAULT_REPLAY_TTL_MS }
        : undefined;
    backend = clientHeldBackend(agent, replay);
  }
  const onError = options.onError ?? defaultOnError;
  const hub = options.eventHub ?? createEventHub();
  const messages = options.messages ?? true;
  const publisher = hubPublisher(hub, {
    userOnEvent: options.onEvent,
    messages,
    onError: (error) => onError(error, new Request('http://turnkit.invalid/events')),
  });
  const { onEvent, publishState } = publisher;

  const root = new Hono<HandlerEnv>({ getPath: rawPath });
  const app = basePath ? root.basePath(basePath) : root;
  if (options.cors) {
    app.use(
      '*',
      corsPolicy(options.cors, {
        methods: ['GET', 'POST'],
        headers: [
          'authorization',
          'content-type',
          'last-event-id',
          // Background turns (Prefer: respond-async) from a page on another origin.
          'prefer',
          EVENTS_TOKEN_HEADER,
          ...(options.protocols ?? []).flatMap((protocol) => protocol.corsHeaders ?? []),
        ],
        expose: ['location', 'preference-applied'],
      }),
    );
  }
  // Registered before the token check: a sweep is authenticated by its own token alone.
  if (store && options.sweepToken && backend.sweep) {
    const clock = options.now ? { now: options.now } : {};
    store.registerSweep(app, options.sweepToken, backend.sweep, {
      onEvent: publisher.forRequest,
      onError,
      onSettled: publishState,
      ...clock,
    });
  }
  // Registered before the token check too: an answer link is its own credential.
  if (store && backend.answerWithLink) {
    store.registerAnswerLink(app, {
      answerWithLink: backend.answerWithLink,
      authorize: options.authorize,
      onError,
      maxBodyBytes,
      messages,
      publishState,
      turnOptions: (request) => ({
        onEvent: publisher.forRequest(),
        onError: (error, run) => onError(error, request, run),
        ...(options.now ? { now: options.now() } : {}),
      }),
    });
  }
  app.use('*', tokenGate(options.token));
  // Token and CORS are the host's; each protocol asks `authorize` itself, knowing its run id.
  const { token: _token, cors: _cors, basePath: _base, protocols, ...shared } = options;
  const deps = {
    options: shared,
    basePath,
    bearer: options.token !== undefined,
    onEvent,
    eventsForRequest: publisher.forRequest,
    onError,
    onSettled: publishState,
  };
  for (const protocol of protocols ?? []) protocol.mount(app, deps);
  registerRoutes(app, {
    backend,
    authorize: options.authorize,
    onError,
    schemas: bodySchemas(backend.clientHeld),
    hub,
    publishState,
    basePath,
    maxBodyBytes,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    messages,
    context: options.context,
    ...(options.queue ? { queue: options.queue } : {}),
    ...(store ? { storeRoutes: store } : {}),
    turnOptions: (c) => {
      const request = c.req.raw;
      // The full error of a failed model call (provider text, base URL) goes to onError only:
      // results, events and snapshots carry its public message.
      const turn: TurnOptions & { onEvent: RequestOnEvent } = {
        onEvent: publisher.forRequest(),
        onError: (error, run) => onError(error, request, run),
      };
      if (options.now) turn.now = options.now();
      turn.principal = callerPrincipal(c.get('principal'));
      return turn;
    },
  });
  return servedWithProblems(app, { fromStore: !backend.clientHeld, onError });
}
