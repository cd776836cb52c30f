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

/** The first control character of `text` (C0 but tab and newline, DEL, C1) as a code point (`U+0000`), if any: text is text, as in core's answers. */
function controlIn(text: string): string | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const control = code <= 0x1f ? code !== 0x09 && code !== 0x0a : code >= 0x7f && code <= 0x9f;
    if (control) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

/**
 * A stop reason is checked here, whatever the run is doing: core checks it only when it cancels a
 * paused run's asks with it, as a cancel's reason (a 422 about a "response list" a stop never sent).
 */
const reason = z
  .string()
  .max(MAX_REASON)
  .superRefine((text, context) => {
    const codePoint = controlIn(text);
    if (codePoint !== undefined) {
      context.addIssue({
        code: 'custom',
        message: `The reason contains the control character ${codePoint}; only plain text is accepted (tab and newline are allowed)`,
      });
    }
  });

const stopBody = z.strictObject({ reason: reason.optional() });

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
