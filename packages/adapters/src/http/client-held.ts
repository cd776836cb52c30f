/**
 * Client-held mode: no store. Each response gives the client the run's signed (or encrypted)
 * snapshot, and the next request about the run sends it back; the handler keeps nothing between
 * requests. The snapshot is authenticated, so an edited one is refused (`SNAPSHOT_TAMPERED`) before
 * anything runs. Reading a run's events takes its `eventsToken` (an HMAC of the run id), never the
 * bare run id.
 *
 * What authentication does not prevent: a client may send an *older* snapshot of its own run again
 * (replay), and two requests with the same snapshot both continue it (no compare-and-set). With
 * `replay: 'reject'` each snapshot resumes at most once (see replay.ts); otherwise tools with side
 * effects must deduplicate on `ctx.idempotencyKey`.
 */
import {
  type AnyAgent,
  defineAgent,
  readSnapshotHeader,
  respond,
  runTurn,
  TurnkitError,
  type TurnOptions,
  type TurnResult,
} from '@turnkit/core';
import { forNewRun } from './auth.js';
import type { RunBackend } from './backend.js';
import { hmacSha256, safeEqual, toBase64url } from './crypto.js';
import { HttpProblem } from './problem.js';
import { claimSnapshot, type ReplayGuard } from './replay.js';
import type { HeldBody } from './schemas.js';

/** Shortest secret accepted when snapshots leave the server: forging one must stay out of reach. */
export const MIN_SECRET_LENGTH = 32;

/** The header carrying a run's events token on `GET /runs/:id/events` (client-held mode). */
export const EVENTS_TOKEN_HEADER = 'turnkit-events-token';

/**
 * The agent protecting its snapshots with `secret` (and encrypting them with `encrypt`): itself
 * when it already does, else a copy with those keys.
 */
export function withKeys(agent: AnyAgent, secret: string | undefined, encrypt: boolean): AnyAgent {
  const keys = agent.snapshot ?? {};
  const wanted = { ...keys, ...(secret !== undefined ? { secret } : {}), ...(encrypt ? { encrypt } : {}) };
  if (wanted.secret === keys.secret && wanted.encrypt === keys.encrypt) return agent;
  return defineAgent({ ...agent, tools: [...agent.tools], snapshot: wanted });
}

/** Refuses to build a client-held handler whose snapshots could be edited or forged. */
export function assertSigning(agent: AnyAgent): void {
  const secret = agent.snapshot?.secret;
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `createHandler without a store sends snapshots to clients, so they must be signed: pass \`secret\` (or set the agent's snapshot.secret) to a random string of at least ${MIN_SECRET_LENGTH} characters, or pass a \`store\`.`,
    );
  }
}

/**
 * The token that opens a run's event stream to one caller: HMAC-SHA256(secret, "turnkit-events\0" +
 * runId), with "\0" + principal appended for a caller admitted with a principal. Bound to the
 * caller, so another principal holding it reads nothing; a principal-less caller's token is the one
 * DESIGN §13 defines, so tokens issued before the binding keep working.
 */
export function eventsToken(secret: string, runId: string, principal: string | undefined): string {
  const bound = principal === undefined ? '' : `\0${principal}`;
  return toBase64url(hmacSha256(secret, `turnkit-events\0${runId}${bound}`));
}

/**
 * Whether a failed resume stopped before anything ran: core throws only before it plays (an
 * invalid answer, a run not waiting, another principal…), and the HTTP layer before calling core.
 * Unknown failures keep the claim, on the safe side.
 */
export function nothingRan(error: unknown): boolean {
  return error instanceof HttpProblem || (TurnkitError.isInstance(error) && error.code !== 'MODEL_ERROR');
}

/** The backend of client-held mode; `agent` must sign its snapshots (see {@link assertSigning}). */
export function clientHeldBackend(agent: AnyAgent, replay?: ReplayGuard): RunBackend {
  const secret = agent.snapshot!.secret!;

  /**
   * The client's snapshot, its signature checked and its run matched with the URL. Only the header
   * is parsed here; the resume that follows validates the rest.
   */
  function heldSnapshot(runId: string, held: HeldBody): string {
    const snapshot = held.snapshot!;
    const decoded = readSnapshotHeader(snapshot, { secret });
    if (decoded.runId !== runId) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `The snapshot belongs to run ${decoded.runId}, not ${runId}: send it to that run's URL.`,
      );
    }
    return snapshot;
  }

  /** Resumes from the client's snapshot, at most once per snapshot with `replay`. */
  async function resume(
    runId: string,
    held: HeldBody,
    options: TurnOptions,
    play: (snapshot: string) => Promise<TurnResult<unknown>>,
  ): Promise<TurnResult<unknown>> {
    const snapshot = heldSnapshot(runId, held);
    if (!replay) return play(snapshot);
    const claim = await claimSnapshot(replay, snapshot, secret, options.now ?? new Date(), {
      named: 'This snapshot',
      latest: "send the snapshot of the run's latest response",
    });
    let result: TurnResult<unknown>;
    try {
      result = await play(snapshot);
    } catch (error) {
      // The error is what the client must see, even if the release fails too.
      if (nothingRan(error)) await claim.release().catch(() => {});
      throw error;
    }
    // An unchanged snapshot (retrying a run that is waiting) may be sent again.
    if (result.snapshot === snapshot) await claim.release();
    return result;
  }

  return {
    clientHeld: true,
    start: (input, context, options) =>
      runTurn(agent, context === undefined ? { input } : { input, context }, forNewRun(options)),
    get: async () => {
      throw new HttpProblem(
        'RUN_NOT_FOUND',
        'This handler keeps no runs (client-held mode): the run state is the snapshot your client holds.',
      );
    },
    respond: (runId, response, held, options) =>
      resume(runId, held, options, (snapshot) => respond(agent, snapshot, [response], options)),
    send: (runId, input, held, options) =>
      resume(runId, held, options, (snapshot) => runTurn(agent, { snapshot, input }, options)),
    retry: (runId, held, options) =>
      resume(runId, held, options, (snapshot) => runTurn(agent, { snapshot }, options)),
    eventsToken: (runId, principal) => eventsToken(secret, runId, principal),
    mayReadEvents(request, runId, principal) {
      const given = request.headers.get(EVENTS_TOKEN_HEADER);
      const matches = safeEqual(given ?? '', eventsToken(secret, runId, principal));
      return given !== null && matches;
    },
  };
}
