/**
 * Where a thread's run lives, and the one way every request acts on it: core's sessions. `threadId`
 * is the run id. Store mode keeps runs in the handler's `SnapshotStore`. Client-held mode loads the
 * snapshot the client echoed back in `state.turnkit` into a store that lasts one request, so both
 * modes get the same claims, the same idempotent repeats (an answer sent again reads the run) and
 * the same conflicts; the client then gets the new snapshot in `STATE_SNAPSHOT`.
 */
import {
  type AnyAgent,
  type ChatMessage,
  createSessions,
  defineAgent,
  type InteractionKind,
  type ModelAdapter,
  memoryStore,
  parseSnapshot,
  type ResponseInput,
  readSnapshotHeader,
  type Sessions,
  type SnapshotStore,
  TurnkitError,
  type TurnOptions,
  type TurnResult,
} from '@turnkit/core';
import { claimSnapshot, forNewRun, HttpProblem, type SnapshotClaim } from '../../http/index.js';
import { STATE_KEY } from './events.js';
import type { AgUiConfig } from './options.js';

/** What a request does to its thread. */
export type Action =
  | { type: 'start'; input: ChatMessage[]; context: unknown }
  | { type: 'respond'; responses: ResponseInput[] }
  | { type: 'send'; input: ChatMessage[] }
  | { type: 'retry' }
  | { type: 'read' };

/** One request's view of a thread. */
export interface Thread {
  readonly threadId: string;
  /** The run as it is now; null when the thread has none yet. */
  readonly current: TurnResult<unknown> | null;
  /** The kind of an interaction the run already resolved (a replayed answer names it). */
  resolvedKind(id: string): InteractionKind | undefined;
  /** Plays an action. */
  play(action: Action, options: TurnOptions): Promise<TurnResult<unknown>>;
  /** Gives back what `play` claimed, when the request was refused before anything ran. */
  giveBack(): Promise<void>;
  /** Waits while another request is playing the run (store mode), then returns it as it is then. */
  settle(
    result: TurnResult<unknown>,
    options: TurnOptions,
    signal: AbortSignal,
  ): Promise<TurnResult<unknown>>;
}

const isRunNotFound = (error: unknown) => TurnkitError.isInstance(error) && error.code === 'RUN_NOT_FOUND';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The snapshot a client-held request echoed back, if any. */
function heldSnapshot(state: unknown): string | undefined {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return undefined;
  const held = (state as Record<string, unknown>)[STATE_KEY];
  if (held === undefined) return undefined;
  if (typeof held !== 'string' || held === '') {
    throw new HttpProblem(
      'BAD_REQUEST',
      `state.${STATE_KEY} must be the snapshot string of the thread's last STATE_SNAPSHOT: send it back unchanged.`,
    );
  }
  return held;
}

/**
 * The agent with its model call announced first: `beforeModel` gets the transcript the top agent's
 * model is about to read (sub-agents keep their own models), so the run's events come in order.
 */
function announcing(agent: AnyAgent, beforeModel: (transcript: ChatMessage[]) => void): AnyAgent {
  const { model } = agent;
  const announced: ModelAdapter = {
    name: model.name,
    generate(request) {
      const [first, ...rest] = request.messages;
      beforeModel(first?.role === 'system' ? rest : request.messages);
      return model.generate(request);
    },
  };
  return defineAgent({ ...agent, tools: [...agent.tools], model: announced });
}

/** Opens a request's thread, in the handler's mode. */
export function threadOpener(config: AgUiConfig) {
  const secret = config.agent.snapshot?.secret;
  const leaseMs = config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {};

  /** Store mode: the stored run; a run another principal started is not found, as core says. */
  async function stored(
    sessions: Sessions<unknown>,
    store: SnapshotStore,
    threadId: string,
    options: TurnOptions,
  ) {
    try {
      return await sessions.get(threadId, options);
    } catch (error) {
      if (isRunNotFound(error) && !(await store.get(threadId))) return null;
      throw error;
    }
  }

  /** Client-held mode: the echoed snapshot, authenticated and matched with the thread, in a one-request store. */
  async function held(agent: AnyAgent, snapshot: string | undefined, threadId: string, options: TurnOptions) {
    const store = memoryStore();
    const sessions = createSessions({ agent, store, ...leaseMs });
    if (snapshot === undefined) return { sessions, current: null };
    const header = readSnapshotHeader(snapshot, secret ? { secret } : {});
    if (header.runId !== threadId) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `state.${STATE_KEY} belongs to thread ${header.runId}, not ${threadId}: send each thread its own state.`,
      );
    }
    await store.put(threadId, snapshot, { expectedVersion: null });
    return { sessions, current: await sessions.get(threadId, options) };
  }

  return async function open(
    threadId: string,
    state: unknown,
    options: TurnOptions,
    beforeModel: (transcript: ChatMessage[]) => void,
  ): Promise<Thread> {
    const agent = announcing(config.agent, beforeModel);
    const { store } = config;
    const echoed = store ? undefined : heldSnapshot(state);
    let opened: { sessions: Sessions<unknown>; current: TurnResult<unknown> | null };
    if (store) {
      const sessions = createSessions({ agent, store, ...leaseMs });
      opened = { sessions, current: await stored(sessions, store, threadId, options) };
    } else opened = await held(agent, echoed, threadId, options);
    const { sessions, current } = opened;
    let claim: SnapshotClaim | undefined;
    let resolved: Map<string, InteractionKind> | undefined;

    async function perform(action: Action, options: TurnOptions): Promise<TurnResult<unknown>> {
      switch (action.type) {
        case 'start':
          return sessions.start(
            { input: action.input, context: action.context, runId: threadId },
            forNewRun(options),
          );
        case 'respond':
          return sessions.respond(threadId, action.responses, options);
        case 'send':
          return sessions.send(threadId, action.input, options);
        case 'retry':
          return sessions.retry(threadId, options);
        case 'read':
          return current ?? sessions.get(threadId, options);
      }
    }

    const giveBack = async () => {
      const given = claim;
      claim = undefined;
      await given?.release().catch(() => {});
    };

    return {
      threadId,
      current,
      resolvedKind(id) {
        if (!current) return undefined;
        resolved ??= new Map(
          parseSnapshot(current.snapshot, secret ? { secret } : {}).state.context.resolved.map((record) => [
            record.id,
            record.kind,
          ]),
        );
        return resolved.get(id);
      },
      async play(action, options) {
        if (config.replay && echoed !== undefined && action.type !== 'read' && secret) {
          claim = await claimSnapshot(config.replay, echoed, secret, options.now ?? new Date(), {
            named: `The thread's state.${STATE_KEY}`,
            latest: "send the state of the thread's latest STATE_SNAPSHOT",
          });
        }
        const result = await perform(action, options);
        if (claim && result.snapshot === echoed) await giveBack();
        return result;
      },
      giveBack,
      async settle(result, options, signal) {
        const deadline = Date.now() + (config.leaseMs ?? 60_000);
        let wait = 50;
        while (result.status === 'running' && !signal.aborted && Date.now() < deadline) {
          await pause(wait);
          wait = Math.min(wait * 2, 1000);
          result = await sessions.get(threadId, options);
        }
        return result;
      },
    };
  };
}
