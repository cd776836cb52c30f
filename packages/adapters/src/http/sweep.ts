/**
 * `POST /sweep` (DESIGN §13, §14): timeouts that fire. A cron job (or any timer) calls it; it
 * resolves every expired interaction the store lists, through core's `sessions.sweep`, and each run
 * goes on, its `state` published to the handler's event hub as after any turn. It exists only when the handler has a `sweepToken`, and is authenticated by
 * `Authorization: Bearer <sweepToken>` alone: the handler's `token` and `authorize` are not asked.
 */
import { type AgentEvent, type SweepOptions, type SweepResult, TurnkitError } from '@turnkit/core';
import type { Hono } from 'hono';
import { hasToken, unauthorizedResponse } from './auth.js';
import { HttpProblem } from './problem.js';
import type { HandlerEnv } from './routes.js';

/** Most runs one sweep plays; `?limit=` may ask for fewer or more, up to this. */
const MAX_LIMIT = 1000;

/** What `POST /sweep` answers: the runs swept (with their new status) and those left for next time. */
export interface SweepView {
  swept: { runId: string; status: string }[];
  skipped: { runId: string; code: string; message: string }[];
}

function limitOf(url: string): number {
  const text = new URL(url).searchParams.get('limit');
  if (text === null) return 100;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new HttpProblem(
      'BAD_REQUEST',
      `limit must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(text)}.`,
    );
  }
  return limit;
}

/** Registers `POST /sweep` on `app` (before the handler's own token check). */
export function registerSweep(
  app: Hono<HandlerEnv>,
  sweepToken: string,
  sweep: (options: SweepOptions) => Promise<SweepResult<unknown>>,
  turn: {
    /** A fresh `onEvent` for one sweep (the handler's, which publishes to its hub). */
    onEvent(): (event: AgentEvent) => void;
    onError(error: unknown, request: Request): void;
    /** Called with each swept run as it is now (the handler publishes its `state` to the hub). */
    onSettled(result: SweepResult<unknown>['swept'][number]): void | Promise<void>;
    /** The handler's clock (its `now` option), else the system clock. */
    now?: () => Date;
  },
): void {
  app.post('/sweep', async (c) => {
    if (!hasToken(c.req.raw, sweepToken)) return unauthorizedResponse();
    const request = c.req.raw;
    const { swept, skipped } = await sweep({
      limit: limitOf(request.url),
      ...(turn.now ? { now: turn.now() } : {}),
      onEvent: turn.onEvent(),
      onError: (error) => turn.onError(error, request),
    });
    await Promise.all(swept.map((run) => turn.onSettled(run)));
    const view: SweepView = {
      swept: swept.map((run) => ({ runId: run.runId, status: run.status })),
      skipped: skipped.map(({ runId, error }) => {
        if (TurnkitError.isInstance(error)) return { runId, code: error.code, message: error.message };
        // A store or server fault: its text is for the operator (onError), not the response.
        turn.onError(error, request);
        return {
          runId,
          code: 'INTERNAL',
          message: 'This run could not be swept; the error went to onError.',
        };
      }),
    };
    return c.json(view);
  });
}
