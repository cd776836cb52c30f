/**
 * The routes, relative to the handler's base path:
 * `POST /runs`, `GET /runs/:id`, `POST /runs/:id/{answer,approve,reject,cancel,messages,retry}` and
 * `GET /runs/:id/events` (SSE). Each one validates its body, calls the backend, publishes what
 * happened to the event hub, and answers with the run's view.
 */
import type { ResponseInput, TurnOptions } from '@turnkit/core';
import type { Context, Hono } from 'hono';
import type { BackendResult, RunBackend } from './backend.js';
import { readJson } from './body.js';
import type { EventHub } from './hub.js';
import { HttpProblem } from './problem.js';
import { type BodySchemas, type HeldBody, parseBody } from './schemas.js';
import { sseResponse } from './sse.js';
import { expiredResolution, toView } from './view.js';

/** What the routes need from the handler. */
export interface RouteDeps {
  backend: RunBackend;
  schemas: BodySchemas;
  hub: EventHub;
  basePath: string;
  maxBodyBytes: number;
  heartbeatMs: number;
  messages: boolean;
  context?: (request: Request) => unknown | Promise<unknown>;
  /** Fresh options for one call: the hub-publishing `onEvent` and the clock. */
  turnOptions(): TurnOptions;
}

/** Run ids core makes are `run_` + 22 base64url characters; anything unusable is an unknown run. */
const RUN_ID = /^[A-Za-z0-9_-]{1,200}$/;

type ResponseType = ResponseInput['type'];

/** Registers every route on `app`. */
export function registerRoutes(app: Hono, deps: RouteDeps): void {
  const { backend, hub } = deps;

  const view = (result: BackendResult, snapshot: boolean) =>
    toView(result, { messages: deps.messages, snapshot });

  function runIdOf(c: Context): string {
    const runId = c.req.param('id') ?? '';
    if (!RUN_ID.test(runId)) {
      throw new HttpProblem('RUN_NOT_FOUND', `No run with id ${JSON.stringify(runId.slice(0, 80))}.`);
    }
    return runId;
  }

  /** Tells the run's event streams the new state (never with a snapshot), then answers the request. */
  function settled(c: Context, result: BackendResult, status: 200 | 201 = 200): Response {
    hub.publish(result.runId, { event: 'state', data: view(result, false) });
    return c.json(view(result, backend.clientHeld), status);
  }

  const body = async (c: Context) => readJson(c.req.raw, deps.maxBodyBytes);

  app.post('/runs', async (c) => {
    const { input } = parseBody(deps.schemas.start, await body(c));
    const context = deps.context ? await deps.context(c.req.raw) : undefined;
    const result = await backend.start(input, context, deps.turnOptions());
    if (backend.clientHeld) return settled(c, result);
    c.header('location', `${deps.basePath}/runs/${result.runId}`);
    return settled(c, result, 201);
  });

  app.get('/runs/:id', async (c) => {
    const result = await backend.get(runIdOf(c), deps.turnOptions());
    return c.json(view(result, false));
  });

  const respondRoute = (type: ResponseType) => async (c: Context) => {
    const runId = runIdOf(c);
    const { snapshot, ...fields } = parseBody(deps.schemas[type], await body(c)) as HeldBody &
      Record<string, unknown>;
    const response = { ...fields, type } as ResponseInput;
    const result = await backend.respond(runId, response, { snapshot }, deps.turnOptions());
    const expired = expiredResolution(result.events);
    if (expired !== null) {
      hub.publish(result.runId, { event: 'state', data: view(result, false) });
      throw new HttpProblem(
        'INTERACTION_EXPIRED',
        `Interaction ${expired} expired before this response arrived, so the response was not used: the interaction was resolved as timed out and the run went on. Its new state is in \`run\`.`,
        { run: view(result, backend.clientHeld) },
      );
    }
    return settled(c, result);
  };
  app.post('/runs/:id/answer', respondRoute('answer'));
  app.post('/runs/:id/approve', respondRoute('approve'));
  app.post('/runs/:id/reject', respondRoute('reject'));
  app.post('/runs/:id/cancel', respondRoute('cancel'));

  app.post('/runs/:id/messages', async (c) => {
    const runId = runIdOf(c);
    const { input, snapshot } = parseBody(deps.schemas.messages, await body(c)) as HeldBody & {
      input: string;
    };
    return settled(c, await backend.send(runId, input, { snapshot }, deps.turnOptions()));
  });

  app.post('/runs/:id/retry', async (c) => {
    const runId = runIdOf(c);
    const held = parseBody(deps.schemas.retry, await body(c)) as HeldBody;
    return settled(c, await backend.retry(runId, held, deps.turnOptions()));
  });

  app.get('/runs/:id/events', async (c) => {
    const runId = runIdOf(c);
    const initial = backend.clientHeld
      ? { event: 'ready', data: { runId } }
      : { event: 'state', data: view(await backend.get(runId, deps.turnOptions()), false) };
    return sseResponse(c.req.raw, { hub, runId, initial, heartbeatMs: deps.heartbeatMs });
  });
}
