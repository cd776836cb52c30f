/**
 * Client-held mode: no store. Each response gives the client the run's signed snapshot, and the
 * next request about the run sends it back; the handler keeps nothing between requests. The
 * snapshot is HMAC-signed, so an edited one is refused (`SNAPSHOT_TAMPERED`) before anything runs.
 *
 * What signing does not prevent: a client may send an *older* snapshot of its own run again
 * (replay), and two requests with the same snapshot both continue it (no compare-and-set). Use
 * store mode when a run must never fork, and `ctx.idempotencyKey` in tools with side effects.
 */
import { type Agent, defineAgent, readSnapshotHeader, respond, runTurn, TurnkitError } from '@turnkit/core';
import type { RunBackend } from './backend.js';
import { HttpProblem } from './problem.js';
import type { HeldBody } from './schemas.js';

/** Shortest secret accepted when snapshots leave the server: forging one must stay out of reach. */
export const MIN_SECRET_LENGTH = 32;

/** The agent signing with `secret`: itself when it already does, else a copy with that secret. */
export function withSecret(agent: Agent, secret: string | undefined): Agent {
  if (secret === undefined || agent.snapshot?.secret === secret) return agent;
  return defineAgent({ ...agent, tools: [...agent.tools], snapshot: { ...agent.snapshot, secret } });
}

/** Refuses to build a client-held handler whose snapshots could be edited or forged. */
export function assertSigning(agent: Agent): void {
  const secret = agent.snapshot?.secret;
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `createHandler without a store sends snapshots to clients, so they must be signed: pass \`secret\` (or set the agent's snapshot.secret) to a random string of at least ${MIN_SECRET_LENGTH} characters, or pass a \`store\`.`,
    );
  }
}

/** The backend of client-held mode; `agent` must sign its snapshots (see {@link assertSigning}). */
export function clientHeldBackend(agent: Agent): RunBackend {
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

  return {
    clientHeld: true,
    start: (input, context, options) =>
      runTurn(agent, context === undefined ? { input } : { input, context }, options),
    get: async () => {
      throw new HttpProblem(
        'RUN_NOT_FOUND',
        'This handler keeps no runs (client-held mode): the run state is the snapshot your client holds.',
      );
    },
    respond: async (runId, response, held, options) =>
      respond(agent, heldSnapshot(runId, held), [response], options),
    send: async (runId, input, held, options) =>
      runTurn(agent, { snapshot: heldSnapshot(runId, held), input }, options),
    retry: async (runId, held, options) => runTurn(agent, { snapshot: heldSnapshot(runId, held) }, options),
  };
}
