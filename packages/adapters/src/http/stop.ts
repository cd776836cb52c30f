/**
 * `POST /runs/:id/stop` (route `stop`, DESIGN §20): stops a run wherever it plays, through core's
 * `sessions.stop`. Body `{ reason? }` (or empty). A turn a worker plays, on any process, ends
 * `aborted` before its next model or tool call (`stop: "requested"`, the run still `running` in the
 * answer); a paused run's asks are cancelled and it rests `aborted` (`stop: "stopped"`, its events
 * published to the hub); a run at rest is left alone (`stop: "not_running"`). Closing an event
 * stream is never a stop. Store mode only: a client-held run plays in no worker to stop.
 */
import type { StopOutcome, TurnOptions } from '@turnkit/core';
import type { Context, Env, Handler } from 'hono';
import { z } from 'zod';
import type { BackendResult } from './backend.js';
import { readJson } from './body.js';
import { parseBody } from './schemas.js';

/** Longest accepted stop reason, in characters (as a cancel reason). */
const MAX_REASON = 16_384;

const stopBody = z.strictObject({ reason: z.string().max(MAX_REASON).optional() });

/** What the stop route needs from the routes around it (`E`: their Hono environment). */
export interface StopRouteDeps<E extends Env> {
  stop(
    runId: string,
    request: { reason?: string },
    options: TurnOptions,
  ): Promise<BackendResult & { stop: StopOutcome }>;
  runIdOf(c: Context<E>): string;
  turnOptions(c: Context<E>): TurnOptions;
  publishState(result: BackendResult): Promise<void>;
  view(c: Context<E>, result: BackendResult): object;
  maxBodyBytes: number;
}

/** The handler of `POST /runs/:id/stop`: answers the run's view with `stop` (what was done). */
export function stopRoute<E extends Env>(deps: StopRouteDeps<E>): Handler<E> {
  return async (c) => {
    const runId = deps.runIdOf(c);
    const { reason } = parseBody(stopBody, await readJson(c.req.raw, deps.maxBodyBytes));
    const result = await deps.stop(runId, reason === undefined ? {} : { reason }, deps.turnOptions(c));
    // Only a stop that ended the turn here has events (a marked turn's are its worker's to publish).
    if (result.stop === 'stopped') await deps.publishState(result);
    return c.json({ ...deps.view(c, result), stop: result.stop });
  };
}
