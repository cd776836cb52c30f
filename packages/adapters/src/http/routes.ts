/**
 * The routes, relative to the handler's base path:
 * `POST /runs`, `GET /runs/:id`, `POST /runs/:id/{answer,approve,reject,cancel,input,messages,retry}`,
 * `POST /runs/:id/stop` (store mode, stop.ts), `POST /runs/:id/extend` (store mode, extend.ts)
 * and `GET /runs/:id/events` (SSE, resumable with `Last-Event-ID`); `GET /interactions` (inbox.ts);
 * `POST /sweep` is registered by
 * the handler (see handler.ts). Each one is registered with its name from the closed list of
 * {@link RouteName}s and a guard that asks `authorize` about that very route before the handler
 * runs; then it validates its body, calls the backend, publishes what happened to the event hub
 * (waiting until the hub stored it, so a stream on any process can see it), and answers with the
 * run's view.
 */
import type { ResponseInput, TurnOptions } from '@turnkit/core';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import {
  type EventHub,
  expiredResolution,
  headStateMessage,
  parseSeq,
  type RequestOnEvent,
  STATE_MESSAGES_MAX_CHARS,
  stateMessage,
  toView,
} from '../events/index.js';
import type { TurnQueue } from '../queue/index.js';
import type { HandlerEnv } from './auth.js';
import { type Authorize, authorizeRoute, type RouteName, unauthorizedResponse } from './auth.js';
import type { BackendOptions, BackendResult, RunBackend } from './backend.js';
import { readJson } from './body.js';
import type { extendRoute } from './extend.js';
import type { forkRoute } from './fork.js';
import type { registerInbox } from './inbox.js';
import { HttpProblem } from './problem.js';
import { type BodySchemas, type HeldBody, parseBody } from './schemas.js';
import { sseResponse } from './sse.js';
import type { stopRoute } from './stop.js';

export type { HandlerEnv } from './auth.js';

/** What the routes need from the handler. */
export interface RouteDeps {
  backend: RunBackend;
  authorize?: Authorize;
  onError(error: unknown, request: Request): void;
  schemas: BodySchemas;
  hub: EventHub;
  /** Publishes a turn's state to the hub; resolves once stored. */
  publishState(result: BackendResult): Promise<void>;
  basePath: string;
  maxBodyBytes: number;
  heartbeatMs: number;
  maxQueuedBytes: number;
  messages: boolean;
  context?: (request: Request) => unknown | Promise<unknown>;
  /** Background turns: where `Prefer: respond-async` requests enqueue their claimed turn. */
  queue?: TurnQueue;
  /** Store mode's own routes (stop, inbox, fork, extend), handed in by `createHandler` only. */
  storeRoutes?: {
    stopRoute: typeof stopRoute;
    registerInbox: typeof registerInbox;
    forkRoute: typeof forkRoute;
    extendRoute: typeof extendRoute;
  };
  /** Fresh options for one call: the hub-publishing `onEvent`, `onError`, the clock, the principal. */
  turnOptions(c: Context<HandlerEnv>): TurnOptions & { onEvent: RequestOnEvent };
}

/** Whether a `Prefer` header (RFC 7240) holds the `respond-async` preference. */
export function prefersRespondAsync(prefer: string | undefined): boolean {
  if (prefer === undefined) return false;
  return prefer
    .split(',')
    .some((preference) => preference.split(';')[0]!.trim().toLowerCase() === 'respond-async');
}

/** Run ids core makes are `run_` + 22 base64url characters; anything unusable is an unknown run. */
const RUN_ID = /^[A-Za-z0-9_-]{1,200}$/;

type ResponseType = Extract<ResponseInput['type'], 'answer' | 'approve' | 'reject' | 'cancel' | 'input'>;

/** Registers every route on `app`. */
export function registerRoutes(app: Hono<HandlerEnv>, deps: RouteDeps): void {
  const { backend, hub } = deps;

  /** Asks `authorize` about the route `name` (with the run id the router extracted), then goes on. */
  const guard =
    (name: RouteName): MiddlewareHandler<HandlerEnv> =>
    async (c, next) => {
      const runId = c.req.param('id');
      const route = runId === undefined ? { name } : { name, runId };
      const access = await authorizeRoute(deps.authorize, c.req.raw, route, deps.onError);
      if (!access.allowed) return unauthorizedResponse();
      c.set('principal', access.principal);
      await next();
    };

  /**
   * The view a client gets; in client-held mode with its snapshot and an events token bound to the
   * caller's principal (another caller holding it reads nothing).
   */
  const view = (c: Context<HandlerEnv>, result: BackendResult) =>
    toView(result, {
      messages: deps.messages,
      snapshot: backend.clientHeld,
      ...(backend.eventsToken ? { eventsToken: backend.eventsToken(result.runId, c.get('principal')) } : {}),
    });

  function runIdOf(c: Context<HandlerEnv>): string {
    const runId = c.req.param('id') ?? '';
    if (!RUN_ID.test(runId)) {
      throw new HttpProblem('RUN_NOT_FOUND', `No run with id ${JSON.stringify(runId.slice(0, 80))}.`);
    }
    return runId;
  }

  /** The seq of a reconnecting stream's `Last-Event-ID` (an id this handler sent), if any. */
  function lastEventIdOf(c: Context<HandlerEnv>): number | undefined {
    const header = c.req.header('last-event-id');
    if (header === undefined || header === '') return undefined;
    const seq = parseSeq(header);
    if (seq === null) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `Last-Event-ID must be the id of an event of this stream (a seq such as "12"), got ${JSON.stringify(header.slice(0, 40))}.`,
      );
    }
    return seq;
  }

  /** Publishes the new state, then answers the request. */
  async function settled(
    c: Context<HandlerEnv>,
    result: BackendResult,
    status: 200 | 201 = 200,
  ): Promise<Response> {
    await deps.publishState(result);
    return c.json(view(c, result), status);
  }

  /**
   * Plays the request's turn, or with `Prefer: respond-async` (and a queue) claims it and leaves
   * it for a worker: `call` gets the options; `answer` makes the response of a played turn.
   */
  async function playOrDefer(
    c: Context<HandlerEnv>,
    call: (options: BackendOptions) => Promise<BackendResult>,
    answer: (result: BackendResult) => Promise<Response>,
  ): Promise<Response> {
    const turn = deps.turnOptions(c);
    const defer = deps.queue !== undefined && prefersRespondAsync(c.req.header('prefer'));
    const result = await call(defer ? { ...turn, defer: true } : turn);
    if (!result.claim) return answer(result);
    // Claimed, nothing played: enqueue first, so an answer never promises a turn nobody will play.
    try {
      await deps.queue!.enqueue(result.claim);
    } catch (error) {
      // A preference is only a preference (RFC 7240): with no queue to take the turn, play it here.
      deps.onError(error, c.req.raw);
      return answer(await backend.play!(result.claim, turn));
    }
    turn.onEvent.release();
    await deps.publishState(result);
    c.header('preference-applied', 'respond-async');
    c.header('location', `${deps.basePath}/runs/${result.runId}`);
    return c.json(view(c, result), 202);
  }

  const body = async (c: Context<HandlerEnv>) => readJson(c.req.raw, deps.maxBodyBytes);

  app.post('/runs', guard('start'), async (c) => {
    const { input } = parseBody(deps.schemas.start, await body(c));
    const context = deps.context ? await deps.context(c.req.raw) : undefined;
    return playOrDefer(
      c,
      (options) => backend.start(input, context, options),
      (result) => {
        if (backend.clientHeld) return settled(c, result);
        c.header('location', `${deps.basePath}/runs/${result.runId}`);
        return settled(c, result, 201);
      },
    );
  });

  app.get('/runs/:id', guard('get'), async (c) => {
    const result = await backend.get(runIdOf(c), deps.turnOptions(c));
    return c.json(view(c, result));
  });

  const respondRoute = (type: ResponseType) => async (c: Context<HandlerEnv>) => {
    const runId = runIdOf(c);
    const { snapshot, ...fields } = parseBody(deps.schemas[type], await body(c)) as HeldBody &
      Record<string, unknown>;
    const response = { ...fields, type } as ResponseInput;
    return playOrDefer(
      c,
      (options) => backend.respond(runId, response, { snapshot }, options),
      async (result) => {
        const expired = expiredResolution(result.events);
        if (expired !== null) {
          await deps.publishState(result);
          throw new HttpProblem(
            'INTERACTION_EXPIRED',
            `Interaction ${expired} expired before this response arrived, so the response was not used: the interaction was resolved as timed out and the run went on. Its new state is in \`run\`.`,
            { run: view(c, result) },
          );
        }
        return settled(c, result);
      },
    );
  };
  app.post('/runs/:id/answer', guard('answer'), respondRoute('answer'));
  app.post('/runs/:id/approve', guard('approve'), respondRoute('approve'));
  app.post('/runs/:id/reject', guard('reject'), respondRoute('reject'));
  app.post('/runs/:id/cancel', guard('cancel'), respondRoute('cancel'));
  app.post('/runs/:id/input', guard('input'), respondRoute('input'));

  app.post('/runs/:id/messages', guard('message'), async (c) => {
    const runId = runIdOf(c);
    const { input, snapshot, mode, messageId } = parseBody(
      deps.schemas.messages,
      await body(c),
    ) as HeldBody & {
      input: string;
      mode?: 'supersede' | 'queue';
      messageId?: string;
    };
    if (mode === 'queue' && backend.clientHeld) {
      throw new HttpProblem(
        'BAD_REQUEST',
        "mode 'queue' needs a store: a client-held run plays in no worker that could hold the message. Send it without `mode` once the turn has ended.",
      );
    }
    const late = mode === undefined ? {} : { mode, ...(messageId !== undefined ? { messageId } : {}) };
    return playOrDefer(
      c,
      (options) => backend.send(runId, input, { snapshot }, { ...options, ...late }),
      async (result) => {
        // Queued (DESIGN §30): accepted for the turn playing, or for when the asks are answered.
        if (!result.queued) return settled(c, result);
        await deps.publishState(result);
        return c.json({ ...view(c, result), queued: result.queued }, 202);
      },
    );
  });

  app.post('/runs/:id/retry', guard('retry'), async (c) => {
    const runId = runIdOf(c);
    const held = parseBody(deps.schemas.retry, await body(c)) as HeldBody;
    return playOrDefer(
      c,
      (options) => backend.retry(runId, held, options),
      (result) => settled(c, result),
    );
  });

  const store = deps.storeRoutes;
  if (store && backend.stop) {
    const stop = backend.stop;
    app.post('/runs/:id/stop', guard('stop'), store.stopRoute({ ...deps, stop, runIdOf, view }));
  }
  if (store && backend.inbox) store.registerInbox(app, guard('inbox'), backend.inbox);
  if (store && backend.fork) {
    const fork = backend.fork;
    app.post('/runs/:id/fork', guard('fork'), store.forkRoute({ ...deps, fork, runIdOf, view }));
  }
  if (store && backend.extend) {
    const extend = backend.extend;
    app.post('/runs/:id/extend', guard('extend'), store.extendRoute({ ...deps, extend, runIdOf, view }));
  }

  /**
   * The first `state` of an event stream (store mode): from the run's head alone (DESIGN §17) unless
   * the transcript is short enough for the state to carry it, so a long history is never assembled
   * for it. The principal is checked either way.
   */
  async function firstState(runId: string, c: Context<HandlerEnv>) {
    const options = deps.turnOptions(c);
    if (backend.head) {
      const head = await backend.head(runId, options);
      if (!deps.messages || head.messagesLength > STATE_MESSAGES_MAX_CHARS) return headStateMessage(head);
    }
    return stateMessage(await backend.get(runId, options), deps.messages);
  }

  app.get('/runs/:id/events', guard('events'), async (c) => {
    const runId = runIdOf(c);
    if (!backend.mayReadEvents(c.req.raw, runId, c.get('principal'))) {
      throw new HttpProblem(
        'RUN_NOT_FOUND',
        `No event stream for run ${runId}: send the run's \`eventsToken\` (from any response about it) in the TurnKit-Events-Token header.`,
      );
    }
    const lastEventId = lastEventIdOf(c);
    const initial = backend.clientHeld ? { event: 'ready', data: { runId } } : await firstState(runId, c);
    return sseResponse(c.req.raw, {
      hub,
      runId,
      initial,
      ...(lastEventId !== undefined ? { lastEventId } : {}),
      heartbeatMs: deps.heartbeatMs,
      maxQueuedBytes: deps.maxQueuedBytes,
    });
  });
}
