/**
 * Where runs live between requests, behind one interface the routes use. Store mode keeps them in
 * a `SnapshotStore` through core's sessions (claim before acting, compare-and-set, idempotent
 * repeats, leases); client-held mode (client-held.ts) gives the signed snapshot to the client.
 */
import {
  type AnyAgent,
  createSessions,
  type ExtendRequest,
  type ForkRequest,
  type InboxFilter,
  type InboxPage,
  type OnInteraction,
  type ResponseInput,
  type RunHead,
  type SendOptions,
  type SessionOptions,
  type SnapshotStore,
  type StopOutcome,
  type StopRequest,
  type SweepOptions,
  type SweepResult,
  type TurnClaim,
  type TurnOptions,
  type TurnResult,
} from '@turnkit/core';
import { forNewRun } from './auth.js';
import type { HeldBody } from './schemas.js';

/** A turn result, with the stored version in store mode (and the claim of a deferred turn). */
export type BackendResult = TurnResult<unknown> & {
  version?: number;
  claim?: TurnClaim;
  queued?: { messageId: string };
};

/**
 * A call's options; `defer` (store mode, `Prefer: respond-async`) claims the turn without playing
 * it; `mode` and `messageId` are a message's (store mode, DESIGN §30).
 */
export type BackendOptions = TurnOptions &
  Pick<SessionOptions, 'defer'> &
  Pick<SendOptions, 'mode' | 'messageId'>;

/** The operations behind the routes. `held` carries the client's snapshot in client-held mode. */
export interface RunBackend {
  /** True when the client holds the snapshot (no store). */
  readonly clientHeld: boolean;
  start(input: string, context: unknown, options: BackendOptions): Promise<BackendResult>;
  /** The run's current state; unknown run: `RUN_NOT_FOUND`. */
  get(runId: string, options: TurnOptions): Promise<BackendResult>;
  /** Store mode: the run's state without its transcript, from the row's head alone when the store can (core's `sessions.getHead`). */
  head?(runId: string, options: TurnOptions): Promise<RunHead<unknown>>;
  respond(
    runId: string,
    response: ResponseInput,
    held: HeldBody,
    options: BackendOptions,
  ): Promise<BackendResult>;
  send(runId: string, input: string, held: HeldBody, options: BackendOptions): Promise<BackendResult>;
  retry(runId: string, held: HeldBody, options: BackendOptions): Promise<BackendResult>;
  /** Client-held mode: the token that opens the run's event stream to `principal` (see `mayReadEvents`). */
  eventsToken?(runId: string, principal: string | undefined): string;
  /** Whether `request` may read the run's events (client-held: it shows the run's events token). */
  mayReadEvents(request: Request, runId: string, principal: string | undefined): boolean;
  /** Store mode: resolves every expired interaction the store lists (core's `sessions.sweep`). */
  sweep?(options: SweepOptions): Promise<SweepResult<unknown>>;
  /** Store mode: plays a turn claimed with `defer` (core's `sessions.play`). */
  play?(claim: TurnClaim, options: TurnOptions): Promise<BackendResult>;
  /** Store mode: stops the run wherever it plays (core's `sessions.stop`). */
  stop?(
    runId: string,
    request: StopRequest,
    options: TurnOptions,
  ): Promise<BackendResult & { stop: StopOutcome }>;
  /** Store mode, with a store that keeps the inbox index: one page of it (core's `sessions.inbox`). */
  inbox?(filter: InboxFilter): Promise<InboxPage>;
  /** Store mode: answers with an answer link, once (core's `sessions.answerWithLink`). */
  answerWithLink?(token: string, response: unknown, options: TurnOptions): Promise<BackendResult>;
  /** Store mode: moves a pending ask's expiry later (core's `sessions.extend`, DESIGN §30). */
  extend?(
    runId: string,
    interactionId: string,
    request: ExtendRequest,
    options: TurnOptions,
  ): Promise<BackendResult>;
  /** Store mode: starts a new run from a kept point of the run (core's `sessions.fork`). */
  fork?(
    runId: string,
    request: ForkRequest,
    options: TurnOptions,
  ): Promise<BackendResult & { forkedFrom?: { runId: string; version: number } }>;
}

/** Store mode: every call goes through core's `createSessions`. */
export function storeBackend(
  agent: AnyAgent,
  store: SnapshotStore,
  leaseMs: number | undefined,
  onInteraction?: OnInteraction,
): RunBackend {
  const sessions = createSessions({
    agent,
    store,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(onInteraction ? { onInteraction } : {}),
  });
  return {
    clientHeld: false,
    start: (input, context, options) =>
      sessions.start(context === undefined ? { input } : { input, context }, forNewRun(options)),
    get: (runId, options) => sessions.get(runId, options),
    head: (runId, options) => sessions.getHead(runId, options),
    respond: (runId, response, _held, options) => sessions.respond(runId, [response], options),
    send: (runId, input, _held, options) => sessions.send(runId, input, options),
    retry: (runId, _held, options) => sessions.retry(runId, options),
    // Reading a run's state first (its principal checked) guards its events.
    mayReadEvents: () => true,
    sweep: (options) => sessions.sweep(options),
    play: (claim, options) => sessions.play(claim, options),
    stop: (runId, request, options) => sessions.stop(runId, request, options),
    answerWithLink: (token, response, options) => sessions.answerWithLink(token, response, options),
    ...(typeof store.listPending === 'function'
      ? { inbox: (filter: InboxFilter) => sessions.inbox(filter) }
      : {}),
    fork: (runId, request, options) => sessions.fork(runId, request, options),
    extend: (runId, interactionId, request, options) =>
      sessions.extend(runId, interactionId, request, options),
  };
}
