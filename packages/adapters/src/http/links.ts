/**
 * `POST /interactions/:token` (route `answer-link`, DESIGN §20): answers a pending interaction with
 * an answer link (core's `sessions.answerLink`), once. No bearer token is needed — the link is the
 * credential — but `authorize` is still asked about the route, so an app may require a login too;
 * the link's own principal answers, whoever the caller is. The body is the response when the link
 * carries none (`{ "type": "approve" }`, `{ "answers": … }`…), checked as the answer, approve,
 * reject, cancel and input routes check theirs (an unknown key is a 400 and spends nothing). A used
 * or expired link is 410, a forged or altered one 403 (both `LINK_INVALID`). Store mode only.
 */
import { type AnswerError, TurnkitError, type TurnOptions } from '@turnkit/core';
import type { Hono } from 'hono';
import { z } from 'zod';
import { type RequestOnEvent, toView } from '../events/index.js';
import { type Authorize, authorizeRoute, unauthorizedResponse } from './auth.js';
import type { BackendResult } from './backend.js';
import { readJson } from './body.js';
import { HttpProblem } from './problem.js';
import type { HandlerEnv } from './routes.js';
import { bodySchemas, parseBody } from './schemas.js';

const routes = bodySchemas(false);

/** The response types a link's body may name: those of the answer, approve, reject, cancel and input routes. */
const LINK_TYPES = ['answer', 'approve', 'reject', 'cancel', 'input'] as const;

/**
 * A body without `type` (core infers it from what is asked): any key of those routes, none other,
 * so a typo is a 400 as on the routes rather than silently dropped while the link is spent.
 */
const untypedBody = z.strictObject({
  ...routes.approve.shape,
  ...routes.cancel.shape,
  answers: routes.answer.shape.answers.optional(),
  value: z.unknown().optional(),
});

/** The link's body checked as the route of its `type` checks it (`{}` when it sends nothing). */
function linkBody(body: unknown): Record<string, unknown> {
  const type = (body as { type?: unknown } | null)?.type;
  if (type === undefined) return parseBody(untypedBody, body);
  const known = parseBody(z.looseObject({ type: z.enum(LINK_TYPES) }), body).type;
  return parseBody(routes[known].extend({ type: z.literal(known) }), body);
}

/**
 * Whether core could not tell the type of a body sent without one: the link's interaction is an
 * approval (which needs `approve` or `reject`), or no longer waits.
 */
function untypable(error: unknown): boolean {
  if (!TurnkitError.isInstance(error) || error.code !== 'ANSWER_INVALID') return false;
  const issues = (error as Partial<AnswerError>).issues ?? [];
  return issues.some((issue) => issue.path.at(-1) === 'type');
}

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
    const body = linkBody(await readJson(request, deps.maxBodyBytes));
    const empty = Object.keys(body).length === 0;
    let result: BackendResult;
    try {
      result = await deps.answerWithLink(
        c.req.param('token'),
        empty ? undefined : body,
        deps.turnOptions(request),
      );
    } catch (error) {
      if (body.type !== undefined || !untypable(error)) throw error;
      throw new HttpProblem(
        'ANSWER_INVALID',
        'This link\'s interaction takes no response without a `type`: it is an approval (send { "type": "approve" } or { "type": "reject" }), or it no longer waits (answered, cancelled or timed out; load the run to see its state). Nothing changed.',
        { issues: (error as AnswerError).issues },
      );
    }
    await deps.publishState(result);
    return c.json(toView(result, { messages: deps.messages, snapshot: false }));
  });
}
