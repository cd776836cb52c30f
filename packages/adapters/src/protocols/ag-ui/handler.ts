/**
 * `agUiHandler`: a TurnKit agent as an AG-UI 1.0 endpoint, a Web-standard `(Request) =>
 * Promise<Response>` that answers a POSTed `RunAgentInput` with AG-UI events over Server-Sent
 * Events. It sits at whatever path it is mounted on; CORS (when asked) → bearer token → the route
 * (route.ts), with `createHandler`'s options, checks and problem details.
 */
import { Hono } from 'hono';
import { corsPolicy, servedWithProblems, tokenGate } from '../../http/index.js';
import { type AgUiHandlerOptions, resolveOptions } from './options.js';
import { agUiRoute } from './route.js';

/**
 * Creates an AG-UI endpoint for an agent, for `@ag-ui/client`'s `HttpAgent`, CopilotKit and any
 * AG-UI front end. `threadId` names the run.
 *
 * - **Store mode** (`store` given): the run lives in the store; every request claims it first
 *   (core's `createSessions`), so two requests can never both go on with it, and an answer sent
 *   again is read back, not applied twice.
 * - **Client-held mode** (no `store`, a `secret` of ≥ 32 characters): the signed (or, with
 *   `encrypt`, encrypted) snapshot travels as `STATE_SNAPSHOT.snapshot.turnkit`, and the client
 *   sends it back in `state` (`HttpAgent` does so by itself).
 *
 * A pause ends the run with `RUN_FINISHED { outcome: { type: 'interrupt', interrupts } }`; the next
 * run answers them with `resume: [{ interruptId, status, payload }]`.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` when the options cannot work.
 *
 * @example
 * import { serve } from '@hono/node-server';
 * import { agUiHandler } from '@turnkit/adapters/ag-ui';
 * serve({ fetch: agUiHandler({ agent, store: fileStore('.turnkit/runs') }), port: 8787 });
 * // front end: new HttpAgent({ url: 'http://localhost:8787', threadId }).runAgent()
 */
export function agUiHandler(options: AgUiHandlerOptions): (request: Request) => Promise<Response> {
  const config = resolveOptions(options);
  const route = agUiRoute(config);
  const app = new Hono();
  if (config.cors) {
    app.use('*', corsPolicy(config.cors, { methods: ['POST'], headers: ['authorization', 'content-type'] }));
  }
  app.use('*', tokenGate(config.token));
  app.post('*', (c) => route(c.req.raw));
  return servedWithProblems(app, {
    fromStore: Boolean(config.store),
    onError: (error, request) => config.onError(error, request),
    notFound: (request) => `${request.method} is not served here: POST a RunAgentInput as JSON.`,
  });
}
