/**
 * Where `mcpServer` keeps a paused run between two `tools/call` requests, behind one interface:
 * in the `requestState` itself (client-held: the snapshot travels to the client and back, signed by
 * the request-state codec), or in a store (`{ runId, version }` travels; `createSessions` claims
 * before it acts, so two retries with one `requestState` can never both continue the run — the
 * loser waits for the winner's turn and reads its outcome).
 */
import {
  type AnyAgent,
  createSessions,
  type InteractionResponse,
  respond,
  runTurn,
  type SnapshotStore,
  TurnkitError,
  type TurnOptions,
  type TurnResult,
} from '@turnkit/core';
import { claimSnapshot, nothingRan, type ReplayGuard } from '../../http/index.js';

/** What a `requestState` carries: where the paused run is. Signed, readable by the client. */
export type RunPointer = { runId: string; version: number } | { snapshot: string };

/** A turn's result and the pointer to mint if it paused. */
export interface RunOutcome {
  result: TurnResult<unknown>;
  pointer: RunPointer;
}

/** Starting, reading and continuing runs, in one of the two modes. */
export interface RunKeeper {
  start(input: { message: string; context?: unknown }, options: TurnOptions): Promise<RunOutcome>;
  /**
   * Continues the run with `responses` (none: only reads it). A pointer that is no longer the
   * latest (another request continued the run meanwhile) reads the run as it is now.
   */
  continue(
    pointer: RunPointer,
    responses: (pending: TurnResult<unknown>['pending']) => InteractionResponse[],
    options: TurnOptions,
  ): Promise<RunOutcome>;
}

/** How long a request whose retry lost the claim waits for the winner's turn before answering "still running". */
const WAIT_FOR_WINNER_MS = 15_000;
const POLL_MS = 100;

function modeMismatch(minted: string, serving: string): TurnkitError {
  return new TurnkitError(
    'CONFIG_INVALID',
    `A requestState minted in ${minted} reached an mcpServer in ${serving}: give each mode its own secret.`,
  );
}

/**
 * Continues from a client's snapshot at most once when `replay` is given (the handler's `replay:
 * 'reject'`): the snapshot is claimed first, and given back when nothing ran or nothing changed.
 */
async function respondOnce(
  agent: AnyAgent,
  snapshot: string,
  chosen: InteractionResponse[],
  options: TurnOptions,
  replay: ReplayGuard | undefined,
): Promise<TurnResult<unknown>> {
  const secret = agent.snapshot?.secret;
  if (!replay || !secret) return respond(agent, snapshot, chosen, options);
  const claim = await claimSnapshot(replay, snapshot, secret, options.now ?? new Date(), {
    named: 'This requestState',
    latest: 'continue from the requestState of the latest answer',
  });
  let result: TurnResult<unknown>;
  try {
    result = await respond(agent, snapshot, chosen, options);
  } catch (error) {
    if (nothingRan(error)) await claim.release().catch(() => {});
    throw error;
  }
  if (result.snapshot === snapshot) await claim.release();
  return result;
}

/** Client-held: the snapshot is the pointer; with `replay`, each one continues the run once. */
export function clientHeldRuns(agent: AnyAgent, replay?: ReplayGuard): RunKeeper {
  const outcome = (result: TurnResult<unknown>): RunOutcome => ({
    result,
    pointer: { snapshot: result.snapshot },
  });
  return {
    async start({ message, context }, options) {
      return outcome(
        await runTurn(agent, { input: message, ...(context === undefined ? {} : { context }) }, options),
      );
    },
    async continue(pointer, responses, options) {
      if (!('snapshot' in pointer)) throw modeMismatch('store mode', 'client-held');
      // With a snapshot and no input, a paused run is returned as it is: no model call, no tool.
      const current = await runTurn(agent, { snapshot: pointer.snapshot }, options);
      const chosen = current.status === 'needs_input' ? responses(current.pending) : [];
      if (chosen.length === 0) return outcome(current);
      return outcome(await respondOnce(agent, pointer.snapshot, chosen, options, replay));
    },
  };
}

/** Store mode: `{ runId, version }` is the pointer. */
export function storedRuns(agent: AnyAgent, store: SnapshotStore, leaseMs: number | undefined): RunKeeper {
  const sessions = createSessions({ agent, store, ...(leaseMs === undefined ? {} : { leaseMs }) });
  const outcome = (result: TurnResult<unknown> & { version: number }): RunOutcome => ({
    result,
    pointer: { runId: result.runId, version: result.version },
  });
  /** The run once no worker plays it (or after the wait, as `running`). */
  async function settled(runId: string, options: TurnOptions): Promise<RunOutcome> {
    const deadline = Date.now() + WAIT_FOR_WINNER_MS;
    let current = await sessions.get(runId, options);
    while (current.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      current = await sessions.get(runId, options);
    }
    return outcome(current);
  }
  return {
    async start({ message, context }, options) {
      return outcome(
        await sessions.start({ input: message, ...(context === undefined ? {} : { context }) }, options),
      );
    },
    async continue(pointer, responses, options) {
      if (!('runId' in pointer)) throw modeMismatch('client-held', 'store mode');
      const current = await sessions.get(pointer.runId, options);
      if (current.version !== pointer.version || current.status !== 'needs_input') {
        return settled(pointer.runId, options);
      }
      const chosen = responses(current.pending);
      if (chosen.length === 0) return outcome(current);
      try {
        const result = await sessions.respond(pointer.runId, chosen, options);
        return result.status === 'running' ? settled(pointer.runId, options) : outcome(result);
      } catch (error) {
        // Another request holds or already changed the run: its outcome is this request's too.
        if (TurnkitError.isInstance(error) && error.code === 'CONFLICT')
          return settled(pointer.runId, options);
        throw error;
      }
    },
  };
}
