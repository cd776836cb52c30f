/**
 * `createHandler`: a TurnKit agent behind a Web-standard `(Request) => Promise<Response>`, so the
 * same handler runs on Node (`@hono/node-server`), Cloudflare Workers, Deno, Bun, Vercel or AWS
 * Lambda. Built on Hono: CORS (when asked) → access check → routes → problem details.
 */
import type { AgentEvent } from '@turnkit/core';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { accessCheck } from './auth.js';
import { type RunBackend, storeBackend } from './backend.js';
import { assertSigning, clientHeldBackend, withSecret } from './client-held.js';
import { createEventHub } from './hub.js';
import { checkOptions, type HandlerOptions } from './options.js';
import { problemBody, problemResponse, toProblem } from './problem.js';
import { registerRoutes } from './routes.js';
import { bodySchemas } from './schemas.js';

/** A Web-standard request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

const defaultOnError = (error: unknown) => console.error('[turnkit/http]', error);

/**
 * Creates the HTTP handler of an agent.
 *
 * - **Store mode** (`store` given): runs live in the store; every request claims the run before it
 *   acts (core's `createSessions`), so concurrent requests can never both continue a run.
 * - **Client-held mode** (no `store`): each response carries the signed `snapshot`, which the client
 *   sends back in the next request's body. Needs a `secret` (≥ 32 characters); refused without one.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` when the options cannot work.
 *
 * @example
 * import { serve } from '@hono/node-server';
 * const handler = createHandler({ agent, store: fileStore('.turnkit/runs'), token: process.env.API_TOKEN });
 * serve({ fetch: handler, port: 8787 });
 */
export function createHandler(options: HandlerOptions): FetchHandler {
  const { basePath, maxBodyBytes } = checkOptions(options);
  const agent = withSecret(options.agent, options.secret);
  let backend: RunBackend;
  if (options.store) {
    backend = storeBackend(agent, options.store, options.leaseMs);
  } else {
    assertSigning(agent);
    backend = clientHeldBackend(agent);
  }
  const onError = options.onError ?? defaultOnError;
  const hub = createEventHub();
  const userOnEvent = options.onEvent;
  const onEvent = (event: AgentEvent) => {
    hub.publish(event.runId, { event: event.type, id: String(event.seq), data: event });
    userOnEvent?.(event);
  };

  const app = basePath ? new Hono().basePath(basePath) : new Hono();
  if (options.cors) {
    const origins = options.cors.origins;
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowMethods: ['GET', 'POST'],
        allowHeaders: ['authorization', 'content-type', 'last-event-id'],
        exposeHeaders: ['location'],
        maxAge: options.cors.maxAgeSeconds ?? 600,
      }),
    );
  }
  const allowed = accessCheck({ token: options.token, authorize: options.authorize, onError });
  app.use('*', async (c, next) => {
    if (!(await allowed(c.req.raw))) {
      const body = problemBody('UNAUTHORIZED', 'Authentication is required.');
      return problemResponse(body, { 'www-authenticate': 'Bearer' });
    }
    await next();
  });
  registerRoutes(app, {
    backend,
    schemas: bodySchemas(backend.clientHeld),
    hub,
    basePath,
    maxBodyBytes,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    messages: options.messages ?? true,
    context: options.context,
    turnOptions: () => (options.now ? { onEvent, now: options.now() } : { onEvent }),
  });
  app.notFound((c) =>
    problemResponse(problemBody('NOT_FOUND', `No route ${c.req.method} ${new URL(c.req.url).pathname}.`)),
  );
  app.onError((error, c) => {
    const { body, report } = toProblem(error, !backend.clientHeld);
    if (report) onError(error, c.req.raw);
    return problemResponse(body);
  });

  return async (request) => {
    try {
      return await app.fetch(request);
    } catch (error) {
      onError(error, request);
      return problemResponse(toProblem(error, false).body);
    }
  };
}
