/**
 * `POST /runs/:id/extend` (route `extend`, DESIGN §30): more time for a pending ask, through core's
 * `sessions.extend`. Body `{ id, ms }`: the interaction and how many milliseconds later it expires.
 * An assignee of the ask or the run's principal may extend it; anyone else gets 403 `NOT_ASSIGNEE`
 * (or 404 where the run is hidden from them). An ask that never expires is 409 `WRONG_KIND`, one
 * that has expired 409 `NOT_WAITING`. Answers the run's view. Store mode only.
 */
import type { ExtendRequest, TurnOptions } from '@turnkit/core';
import type { Context, Env, Handler } from 'hono';
import { z } from 'zod';
import type { BackendResult } from './backend.js';
import { readJson } from './body.js';
import { parseBody } from './schemas.js';

/** The longest extension one request may ask for: a year. */
const MAX_EXTENSION_MS = 366 * 24 * 3_600_000;

const extendBody = z.strictObject({
  id: z.string().min(1).max(500),
  ms: z.number().int().min(1).max(MAX_EXTENSION_MS),
});

/** What the extend route needs from the routes around it (`E`: their Hono environment). */
export interface ExtendRouteDeps<E extends Env> {
  extend(
    runId: string,
    interactionId: string,
    request: ExtendRequest,
    options: TurnOptions,
  ): Promise<BackendResult>;
  runIdOf(c: Context<E>): string;
  turnOptions(c: Context<E>): TurnOptions;
  publishState(result: BackendResult): Promise<void>;
  view(c: Context<E>, result: BackendResult): object;
  maxBodyBytes: number;
}

/** The handler of `POST /runs/:id/extend`: answers the run's view, the ask's new `expiresAt` in it. */
export function extendRoute<E extends Env>(deps: ExtendRouteDeps<E>): Handler<E> {
  return async (c) => {
    const runId = deps.runIdOf(c);
    const { id, ms } = parseBody(extendBody, await readJson(c.req.raw, deps.maxBodyBytes));
    const result = await deps.extend(runId, id, { ms }, deps.turnOptions(c));
    await deps.publishState(result);
    return c.json(deps.view(c, result));
  };
}
