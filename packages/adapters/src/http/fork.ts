/**
 * `POST /runs/:id/fork` (route `fork`, DESIGN §21): starts a new run from a kept point of the run,
 * through core's `sessions.fork`. Body `{ at: version | { interactionId } }`: a version from the
 * run's history, or the last point where that interaction waited for its answer (so it can be
 * answered differently). Answers `201` with the new run's view, its `forkedFrom: { runId, version }`
 * and a `location`; the source run is unchanged. The caller must be allowed on the source (its
 * principal): anyone else gets 404. An unknown point is `POINT_NOT_FOUND` (404). Tools that ran
 * after the point are not undone. Store mode only.
 */
import type { ForkRequest, TurnOptions } from '@turnkit/core';
import type { Context, Env, Handler } from 'hono';
import { z } from 'zod';
import type { BackendResult } from './backend.js';
import { readJson } from './body.js';
import { parseBody } from './schemas.js';

const forkBody = z.strictObject({
  at: z.union([z.number().int().min(1), z.strictObject({ interactionId: z.string().min(1).max(1_000) })]),
});

/** What the fork route needs from the routes around it (`E`: their Hono environment). */
export interface ForkRouteDeps<E extends Env> {
  fork(
    runId: string,
    request: ForkRequest,
    options: TurnOptions,
  ): Promise<BackendResult & { forkedFrom?: { runId: string; version: number } }>;
  runIdOf(c: Context<E>): string;
  turnOptions(c: Context<E>): TurnOptions;
  publishState(result: BackendResult): Promise<void>;
  view(c: Context<E>, result: BackendResult): object;
  maxBodyBytes: number;
  basePath: string;
}

/** The handler of `POST /runs/:id/fork`: answers the new run's view (its `forkedFrom` included). */
export function forkRoute<E extends Env>(deps: ForkRouteDeps<E>): Handler<E> {
  return async (c) => {
    const runId = deps.runIdOf(c);
    const { at } = parseBody(forkBody, await readJson(c.req.raw, deps.maxBodyBytes));
    const result = await deps.fork(runId, { at }, deps.turnOptions(c));
    await deps.publishState(result);
    c.header('location', `${deps.basePath}/runs/${result.runId}`);
    return c.json(deps.view(c, result), 201);
  };
}
