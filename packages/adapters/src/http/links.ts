/**
 * `POST /interactions/:token` (route `answer-link`, DESIGN §20): answers a pending interaction with
 * an answer link (core's `sessions.answerLink`), once. No bearer token is needed — the link is the
 * credential — but `authorize` is still asked about the route, so an app may require a login too;
 * the link's own principal answers, whoever the caller is. The body is the response when the link
 * carries none (`{ "type": "approve" }`, `{ "answers": … }`…). A used or expired link is 410, a
 * forged or altered one 403 (both `LINK_INVALID`). Store mode only.
 */
import type { TurnOptions } from '@turnkit/core';
import type { Hono } from 'hono';
import { type RequestOnEvent, toView } from '../events/index.js';
import { type Authorize, authorizeRoute, unauthorizedResponse } from './auth.js';
import type { BackendResult } from './backend.js';
import { readJson } from './body.js';
import type { HandlerEnv } from './routes.js';

/** What the route needs from the handler. */
export interface AnswerLinkDeps {
  answerWithLink(token: string, response: unknown, options: TurnOptions): Promise<BackendResult>;
  authorize?: Authorize | undefined;
  onError(error: unknown, request: Request): void;
  maxBodyBytes: number;
  messages: boolean;
  /** Publishes the new state to the event hub; resolves once stored. */
  publishState(result: BackendResult): Promise<void>;
  /** Fresh options for one call (the hub-publishing `onEvent`, `onError`, the clock). */
  turnOptions(request: Request): TurnOptions & { onEvent: RequestOnEvent };
}

/** Registers `POST /interactions/:token` on `app`, before the handler's bearer-token check. */
export function registerAnswerLink(app: Hono<HandlerEnv>, deps: AnswerLinkDeps): void {
  app.post('/interactions/:token', async (c) => {
    const request = c.req.raw;
    const access = await authorizeRoute(deps.authorize, request, { name: 'answer-link' }, deps.onError);
    if (!access.allowed) return unauthorizedResponse();
    const body = await readJson(request, deps.maxBodyBytes);
    const empty = typeof body === 'object' && body !== null && Object.keys(body).length === 0;
    const result = await deps.answerWithLink(
      c.req.param('token'),
      empty ? undefined : body,
      deps.turnOptions(request),
    );
    await deps.publishState(result);
    return c.json(toView(result, { messages: deps.messages, snapshot: false }));
  });
}
