/**
 * Where a chat's run lives, behind one interface the handler uses. The chat `id` names the run.
 * - **Store mode**: core's sessions over the `SnapshotStore` — claim before acting, idempotent
 *   repeats, leases — so two requests answering at once never both continue the run.
 * - **Client-held mode**: the client holds the signed (or encrypted) snapshot in the assistant
 *   message's metadata and sends it back; resumes go through the HTTP module's client-held backend
 *   (signature check, the run matched with the chat, `replay: 'reject'` when configured).
 */
import {
  type AnyAgent,
  type ChatMessage,
  ConflictError,
  createSessions,
  parseSnapshot,
  type ResponseInput,
  readSnapshotHeader,
  runTurn,
  type SnapshotStore,
  StateError,
  type TurnOptions,
  type TurnResult,
} from '@turnkit/core';
import { clientHeldBackend, forNewRun, HttpProblem, type ReplayGuard } from '../../http/index.js';

/** The operations behind the chat routes. `snapshot` is the client's, in client-held mode. */
export interface ChatRuns {
  readonly clientHeld: boolean;
  /**
   * The run's state, or null when there is none for this caller. Client-held mode reads the
   * client's snapshot (authenticated), and only while it waits (reading runs nothing).
   */
  read(
    chatId: string,
    snapshot: string | undefined,
    options: TurnOptions,
  ): Promise<TurnResult<unknown> | null>;
  start(
    chatId: string,
    input: string | ChatMessage[],
    context: unknown,
    options: TurnOptions,
  ): Promise<TurnResult<unknown>>;
  send(
    chatId: string,
    text: string,
    snapshot: string | undefined,
    options: TurnOptions,
  ): Promise<TurnResult<unknown>>;
  respond(
    chatId: string,
    responses: ResponseInput[],
    snapshot: string | undefined,
    options: TurnOptions,
  ): Promise<TurnResult<unknown>>;
}

const notFound = (chatId: string) =>
  new HttpProblem('RUN_NOT_FOUND', `No run for chat ${chatId}: start it with a user message.`);

/** Store mode: every call goes through core's sessions. */
export function storeRuns(agent: AnyAgent, store: SnapshotStore, leaseMs: number | undefined): ChatRuns {
  const sessions = createSessions({ agent, store, ...(leaseMs !== undefined ? { leaseMs } : {}) });
  async function read(
    chatId: string,
    _snapshot: unknown,
    options: TurnOptions,
  ): Promise<TurnResult<unknown> | null> {
    try {
      return await sessions.get(chatId, options);
    } catch (error) {
      if (error instanceof StateError && error.code === 'RUN_NOT_FOUND') return null;
      throw error;
    }
  }
  return {
    clientHeld: false,
    read,
    async start(chatId, input, context, options) {
      try {
        return await sessions.start(
          { input, runId: chatId, ...(context !== undefined ? { context } : {}) },
          forNewRun(options),
        );
      } catch (error) {
        // Another request started this chat first, or the id is another caller's run (not found).
        if (error instanceof ConflictError && (await read(chatId, undefined, options)) === null) {
          throw notFound(chatId);
        }
        throw error;
      }
    },
    send: (chatId, text, _snapshot, options) => sessions.send(chatId, text, options),
    respond: (chatId, responses, _snapshot, options) => sessions.respond(chatId, responses, options),
  };
}

/** Client-held mode: `agent` signs its snapshots (checked when the handler is built). */
export function clientHeldRuns(agent: AnyAgent, replay: ReplayGuard | undefined): ChatRuns {
  const backend = clientHeldBackend(agent, replay);
  const secret = agent.snapshot?.secret;

  /** The client's snapshot, authenticated and of this chat's run. */
  function held(chatId: string, snapshot: string | undefined): string {
    if (snapshot === undefined) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `Chat ${chatId}: no assistant message carries metadata.turnkit.snapshot, so there is no run to answer. Send the messages as the server streamed them (with their metadata).`,
      );
    }
    const { runId } = readSnapshotHeader(snapshot, { ...(secret !== undefined ? { secret } : {}) });
    if (runId !== chatId) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `The snapshot in the messages belongs to run ${runId}, not to chat ${chatId}: a chat continues its own run.`,
      );
    }
    return snapshot;
  }

  return {
    clientHeld: true,
    async read(chatId, snapshot, options) {
      if (snapshot === undefined) return null;
      const { state } = parseSnapshot(held(chatId, snapshot), {
        ...(secret !== undefined ? { secret } : {}),
      });
      // A waiting run is returned as it is; any other would be retried or refused: not read.
      return state.value === 'waitingInput' ? runTurn(agent, { snapshot }, options) : null;
    },
    start: (chatId, input, context, options) =>
      runTurn(
        agent,
        { input, runId: chatId, ...(context !== undefined ? { context } : {}) },
        forNewRun(options),
      ),
    send: (chatId, text, snapshot, options) =>
      backend.send(chatId, text, { snapshot: held(chatId, snapshot) }, options),
    async respond(chatId, responses, snapshot, options) {
      // One response at a time, each on the snapshot the previous one gave (each claimed once
      // with replay: 'reject'); the result carries every event.
      let current = held(chatId, snapshot);
      const events: TurnResult<unknown>['events'] = [];
      let result: TurnResult<unknown> | undefined;
      for (const response of responses) {
        result = await backend.respond(chatId, response, { snapshot: current }, options);
        events.push(...result.events);
        current = result.snapshot;
      }
      if (!result) throw new HttpProblem('BAD_REQUEST', 'No response to apply.');
      return { ...result, events };
    },
  };
}
