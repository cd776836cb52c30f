/**
 * The options of `agUiHandler`: the HTTP handler's own (same names, same checks, same defaults), so
 * one set of options serves `createHandler` and its AG-UI route. A handler that could not work safely
 * is refused when it is built (`TurnkitError` `CONFIG_INVALID`), never on the first request.
 */
import {
  type AgentEvent,
  type AnyAgent,
  type SnapshotStore,
  TurnkitError,
  type TurnResult,
} from '@turnkit/core';
import type { Authorize, ReplayStore } from '../../http/index.js';
import {
  assertSigning,
  checkOptions,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_REPLAY_TTL_MS,
  type HandlerOptions,
  withKeys,
} from '../../http/index.js';

/** Options of `agUiHandler`: those of `createHandler` that apply to one AG-UI endpoint. */
export interface AgUiHandlerOptions
  extends Pick<
    HandlerOptions,
    | 'agent'
    | 'store'
    | 'secret'
    | 'encrypt'
    | 'replay'
    | 'replayStore'
    | 'replayTtlMs'
    | 'token'
    | 'authorize'
    | 'cors'
    | 'maxBodyBytes'
    | 'leaseMs'
    | 'onEvent'
    | 'onError'
    | 'heartbeatMs'
    | 'maxQueuedBytes'
    | 'now'
  > {
  /** Send `MESSAGES_SNAPSHOT` (the run's whole transcript) at the end of every run (default true). */
  messages?: boolean | undefined;
  /** Builds the application `context` of a new thread from the request that starts it (e.g. the user id). */
  context?: (request: Request) => unknown | Promise<unknown>;
}

/** The checked options, with their defaults. */
export interface AgUiConfig {
  /** The agent, signing (and encrypting) its snapshots as the options say. */
  agent: AnyAgent;
  store?: SnapshotStore;
  /** Client-held: replay protection, when `replay: 'reject'`. */
  replay?: { store: ReplayStore; ttlMs: number };
  token?: string;
  authorize?: Authorize;
  cors?: { origins: string[]; maxAgeSeconds?: number };
  maxBodyBytes: number;
  leaseMs?: number;
  messages: boolean;
  context?: (request: Request) => unknown | Promise<unknown>;
  onEvent?: (event: AgentEvent) => void;
  onError: (error: unknown, request: Request, run?: { runId: string; agentPath: string[] }) => void;
  heartbeatMs: number;
  maxQueuedBytes: number;
  now?: () => Date;
  /**
   * Gets each run's final result (not the ones refused before they started): `createHandler`'s
   * mount publishes it to its event hub as a `state` event, as its own routes do.
   */
  onSettled?: (result: TurnResult<unknown>) => void;
  /**
   * Replaces `onEvent` with one made for each request: `createHandler`'s mount holds a turn's
   * events until its claim is written, so a request that loses the race publishes nothing.
   */
  eventsForRequest?: () => (event: AgentEvent) => void;
}

const defaultOnError = (error: unknown) => console.error('[turnkit/ag-ui]', error);

/** The HTTP handler's checks, their messages naming `agUiHandler`. */
function named<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (TurnkitError.isInstance(error) && error.message.startsWith('createHandler')) {
      throw new TurnkitError(error.code, `agUiHandler${error.message.slice('createHandler'.length)}`);
    }
    throw error;
  }
}

/** Checks the options (throws `CONFIG_INVALID`) and fills in the defaults. */
export function resolveOptions(options: AgUiHandlerOptions): AgUiConfig {
  const { maxBodyBytes } = named(() => checkOptions(options));
  if (options.messages !== undefined && typeof options.messages !== 'boolean') {
    throw new TurnkitError('CONFIG_INVALID', 'agUiHandler: `messages` must be true or false.');
  }
  const agent = withKeys(options.agent, options.secret, options.encrypt === true);
  if (!options.store) named(() => assertSigning(agent));
  const config: AgUiConfig = {
    agent,
    maxBodyBytes,
    messages: options.messages ?? true,
    onError: options.onError ?? defaultOnError,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
  };
  if (options.store) config.store = options.store;
  if (options.replay === 'reject' && options.replayStore) {
    config.replay = { store: options.replayStore, ttlMs: options.replayTtlMs ?? DEFAULT_REPLAY_TTL_MS };
  }
  if (options.token !== undefined) config.token = options.token;
  if (options.authorize) config.authorize = options.authorize;
  if (options.cors) config.cors = options.cors;
  if (options.leaseMs !== undefined) config.leaseMs = options.leaseMs;
  if (options.context) config.context = options.context;
  if (options.onEvent) config.onEvent = options.onEvent;
  if (options.now) config.now = options.now;
  return config;
}
