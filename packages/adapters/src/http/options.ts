/**
 * The options of `createHandler`, and their checks: a handler that could not work safely (no
 * signing secret in client-held mode, a nonsensical limit) is refused when it is built, with
 * `TurnkitError` `CONFIG_INVALID`, never on the first request.
 */

import {
  type AgentEvent,
  type AnyAgent,
  type OnInteraction,
  type SnapshotStore,
  TurnkitError,
  type TurnResult,
} from '@turnkit/core';
import type { Hono } from 'hono';
import { checkCount, type EventHub } from '../events/index.js';
import type { TurnQueue } from '../queue/index.js';
import type { Authorize } from './auth.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';
import type { ReplayStore } from './replay.js';
import type { HandlerEnv } from './routes.js';

/** The handler's options a mount shares: all but those the handler applies itself before a mount. */
export type MountOptions = Omit<HandlerOptions, 'token' | 'cors' | 'basePath' | 'protocols'>;

/** What `createHandler` hands each mount. */
export interface MountDeps {
  /** The handler's options (store, secret, encrypt, replay, limits, `authorize`, `context`…). */
  options: MountOptions;
  /** The handler's own base path ('' for none); a mount's routes sit at `basePath + path`. */
  basePath: string;
  /** Whether the handler checks a bearer `token` (a mount that describes its auth, as A2A's card, says so). */
  bearer: boolean;
  /** The handler's `onEvent`, which also publishes to its hub. */
  onEvent(event: AgentEvent): void;
  /** A fresh `onEvent` for one request, holding a turn's events until its claim is written. */
  eventsForRequest(): (event: AgentEvent) => void;
  onError(error: unknown, request: Request, run?: { runId: string; agentPath: string[] }): void;
  /** Publishes a finished turn's state to the hub. */
  onSettled(result: TurnResult<unknown>): void;
}

/** Where a protocol is mounted, relative to the handler's `basePath` (e.g. `{ path: '/chat' }`). */
export interface ProtocolMountOptions {
  path?: string | undefined;
}

/**
 * A protocol `createHandler` can mount, made by `aiSdkProtocol()` (`@turnkit/adapters/ai-sdk`),
 * `agUiProtocol()` (`/ag-ui`) or `mcpProtocol()` (`/mcp`).
 */
export interface ProtocolMount {
  /** The route name `authorize` is asked about (`aiSdk`, `agUi`, `mcp`). */
  readonly name: string;
  /** Where it is mounted, relative to the handler's `basePath`, e.g. `/chat`. */
  readonly path: string;
  /** Request headers its clients send beside the handler's own (allowed by CORS). */
  readonly corsHeaders?: readonly string[];
  /** Registers its routes on the handler's app (after the token check, before the handler's routes). */
  mount(app: Hono<HandlerEnv>, deps: MountDeps): void;
}

/** A Web-standard request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Default `replayTtlMs`: 30 days. */
export const DEFAULT_REPLAY_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Options of `createHandler`. Each optional one also takes `undefined` (an unset environment
 * variable), which means the same as leaving it out.
 */
export interface HandlerOptions {
  agent: AnyAgent;
  /** Store mode: runs live here between requests. Without it the handler is in client-held mode. */
  store?: SnapshotStore;
  /**
   * HMAC secret for snapshots (default: the agent's `snapshot.secret`). Required without a store,
   * at least 32 characters; with a store it signs the snapshots at rest. `undefined` is the same as
   * leaving it out: a client-held handler without any secret is refused with `CONFIG_INVALID`.
   */
  secret?: string | undefined;
  /**
   * Encrypt snapshots (AES-256-GCM, key derived from `secret`): a client holding one reads neither
   * transcript nor context. Also on when the agent has `snapshot.encrypt`. Needs a secret.
   */
  encrypt?: boolean | undefined;
  /**
   * Client-held mode: whether a snapshot may resume its run more than once (default `'allow'`). With
   * `'allow'`, a client can send an older snapshot of its run again and its tools run again: a tool
   * with side effects must deduplicate on `ctx.idempotencyKey`. With `'reject'`, each snapshot
   * resumes at most once (needs `replayStore`); a second use answers 409 `CONFLICT`.
   */
  replay?: 'allow' | 'reject' | undefined;
  /** With `replay: 'reject'`: where used snapshots are remembered (`memoryReplayStore()`, `redisReplayStore(client)`). */
  replayStore?: ReplayStore;
  /**
   * With `replay: 'reject'`: how long a used snapshot is remembered (default 30 days); a snapshot
   * older than this is refused (409), since a replay of it could no longer be recognised.
   */
  replayTtlMs?: number | undefined;
  /** Path prefix of every route, e.g. `/api/agent` (default: none). */
  basePath?: string | undefined;
  /**
   * Bearer token every request must carry (`Authorization: Bearer …`), compared in constant time.
   * A token with whitespace could never match and is refused when the handler is built. Left out or
   * `undefined` (e.g. `process.env.TURNKIT_API_TOKEN` unset), no token is checked: the handler is
   * open unless `authorize` or your gateway guards it.
   */
  token?: string | undefined;
  /**
   * Store mode: enables `POST /sweep` (timeouts that fire, DESIGN §14), authenticated by
   * `Authorization: Bearer <sweepToken>` alone — `token` and `authorize` are not consulted, so a
   * cron job needs no user credentials. Without it (or with `undefined`) the route does not exist.
   */
  sweepToken?: string | undefined;
  /**
   * Standard protocols mounted beside the routes (paths relative to `basePath`), with the same
   * store, token, `authorize`, CORS and limits, each made by its own subpath's factory so a handler
   * bundles only those it mounts: `[aiSdkProtocol({ path: '/chat' }), agUiProtocol(), mcpProtocol()]`.
   */
  protocols?: readonly ProtocolMount[];
  /**
   * Your own access check (cookies, JWT…), asked about each named route the router matched, after
   * `token` (with both, both must pass). Return `{ principal }` to bind the runs a caller starts to
   * that caller: a run started by one principal is not found (404) for any other. Unknown routes
   * are answered 404 without asking it.
   */
  authorize?: Authorize;
  /** CORS for browsers on other origins (off by default). `['*']` allows any origin. */
  cors?: { origins: string[]; maxAgeSeconds?: number | undefined };
  /** Largest request body in bytes (default 1 MiB), enforced while reading. */
  maxBodyBytes?: number | undefined;
  /** Store mode: how long a request's claim on a run holds (default 60 000 ms, see `createSessions`). */
  leaseMs?: number | undefined;
  /**
   * Store mode: called once per new pending interaction after its pause is stored, at least once
   * (see `createSessions`' `onInteraction`): send the e-mail with an answer link, post to chat.
   */
  onInteraction?: OnInteraction;
  /** Include the transcript in responses and `state` events (default true). */
  messages?: boolean | undefined;
  /** Builds the application `context` of a new run from its `POST /runs` request (e.g. the user id). */
  context?: (request: Request) => unknown | Promise<unknown>;
  /** Also receives every event of the turns this handler plays (e.g. `jsonlEventLog(dir).onEvent`). */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Receives what clients must never see: server faults (500s), throwing `authorize` calls, and
   * the full error of a failed model call (the provider's text, base URL, model id; with `run`:
   * `{ runId, agentPath }`) while responses, events and snapshots carry only its public message.
   * Default: `console.error`.
   */
  onError?: (error: unknown, request: Request, run?: { runId: string; agentPath: string[] }) => void;
  /** Interval of SSE heartbeat comments (default 15 000 ms). */
  heartbeatMs?: number | undefined;
  /**
   * Most bytes queued for one SSE client and not yet read (default 8 MiB): a client that falls
   * further behind is disconnected (it may reconnect).
   */
  maxQueuedBytes?: number | undefined;
  /**
   * Where turns publish their events and states for SSE streams, and where streams resume from
   * `Last-Event-ID`. Default: an in-process hub (`createEventHub()`), which sees only the turns this
   * process plays; behind a load balancer, give every instance `redisEventHub(client)` or
   * `postgresEventHub(pool)` (from `@turnkit/adapters`) so a stream follows a run wherever it plays.
   * The handler never closes it: call `eventHub.close()` on shutdown.
   */
  eventHub?: EventHub;
  /**
   * Background turns (DESIGN §17, store mode): a request with `Prefer: respond-async` to a route
   * that plays a turn (`POST /runs`, `…/answer`, `…/approve`, `…/reject`, `…/cancel`, `…/input`,
   * `…/messages`, `…/retry`) is answered `202` as soon as its turn is claimed and enqueued here
   * (`Preference-Applied: respond-async`, `Location` the run); the run reads `running` until a
   * worker (`createWorker`) has played it, and its event stream follows it. Without the header, or
   * when the request changes nothing (a repeated answer), the route plays or answers as always.
   */
  queue?: TurnQueue;
  /**
   * The clock of each call (default: the system clock): interaction expiry and timestamps. Leases are
   * judged by the store's own clock, never by this one.
   */
  now?: () => Date;
}

function invalid(message: string): TurnkitError {
  return new TurnkitError('CONFIG_INVALID', `createHandler: ${message}`);
}

/** Checks `encrypt` and the replay options against the mode. */
function checkProtection(options: HandlerOptions): void {
  if (options.encrypt !== undefined && typeof options.encrypt !== 'boolean') {
    throw invalid('`encrypt` must be true or false.');
  }
  if (options.encrypt && options.secret === undefined && !options.agent.snapshot?.secret) {
    throw invalid(
      "`encrypt: true` needs `secret` (or the agent's snapshot.secret): the key is derived from it.",
    );
  }
  const { replay, replayStore } = options;
  if (replay !== undefined && replay !== 'allow' && replay !== 'reject') {
    throw invalid(`\`replay\` must be 'allow' or 'reject', got ${JSON.stringify(replay)}.`);
  }
  if (replay === 'reject' && typeof replayStore?.claim !== 'function') {
    throw invalid(
      "`replay: 'reject'` needs a `replayStore` to remember used snapshots: memoryReplayStore() for one instance, redisReplayStore(client) for several.",
    );
  }
  if (replayStore !== undefined && replay !== 'reject') {
    throw invalid("`replayStore` is only used with `replay: 'reject'`: add it, or leave `replayStore` out.");
  }
}

/** How the mounts are written since protocols are passed in (the object form loaded all three). */
const MOUNTS_FORM =
  "protocols: [aiSdkProtocol({ path: '/chat' }), agUiProtocol({ path: '/ag-ui' }), mcpProtocol({ path: '/mcp' })], " +
  "each imported from its subpath ('@turnkit/adapters/ai-sdk', '/ag-ui', '/mcp')";

/** Mounts must be made by a protocol's factory, at plain, distinct paths clear of the handler's own routes. */
function checkMounts(mounts: readonly ProtocolMount[] | undefined): void {
  if (mounts === undefined) return;
  if (!Array.isArray(mounts)) throw invalid(`\`protocols\` is a list of mounts: write ${MOUNTS_FORM}.`);
  const seen = new Set<string>();
  for (const mount of mounts) {
    if (typeof mount?.mount !== 'function' || typeof mount.name !== 'string') {
      throw invalid(
        `protocols holds ${JSON.stringify(mount)}, which is not a protocol mount: write ${MOUNTS_FORM}.`,
      );
    }
    const { name, path } = mount;
    if (typeof path !== 'string' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
      throw invalid(
        `protocol ${name} must be mounted at a path such as "/chat" (letters, digits, . _ ~ -), got ${JSON.stringify(path)}.`,
      );
    }
    if (path === '/runs' || path.startsWith('/runs/') || path === '/sweep') {
      throw invalid(
        `protocol ${name} (${path}) would hide the handler's own /runs or /sweep routes: choose another path.`,
      );
    }
    if (seen.has(path)) throw invalid(`protocols: two protocols are mounted at ${path}.`);
    seen.add(path);
  }
}

/**
 * The options only store mode reads (a sweep, background turns, leases), checked where store mode
 * is wired in: `createHandler` hands this in with the rest of store mode, so a client-held-only
 * bundle holds none of it (see {@link refuseStoreOnlyOptions}).
 */
export function checkStoreOnlyOptions(options: HandlerOptions): void {
  if (options.sweepToken !== undefined) {
    if (
      typeof options.sweepToken !== 'string' ||
      options.sweepToken.length < 16 ||
      /\s/.test(options.sweepToken)
    ) {
      throw invalid('`sweepToken` must be a string of at least 16 characters without whitespace.');
    }
    if (!options.store) {
      throw invalid('`sweepToken` needs a `store`: in client-held mode no server keeps the runs to sweep.');
    }
  }
  if (options.queue !== undefined) {
    if (typeof options.queue?.enqueue !== 'function') {
      throw invalid('`queue` must be a turn queue such as bullmqQueue({ connection }) or memoryQueue().');
    }
    if (!options.store) {
      throw invalid(
        '`queue` needs a `store`: a background turn is claimed in the store and played from it by a worker.',
      );
    }
  }
  checkCount(options.leaseMs, 'leaseMs', 'createHandler');
  if (options.replay === 'reject' && options.store) {
    throw invalid(
      "`replay: 'reject'` is for client-held mode: with a `store`, every resume is a compare-and-set and a snapshot is never replayed. Leave `replay` out.",
    );
  }
}

/** The client-held-only handler refuses what only store mode reads, in one message. */
export function refuseStoreOnlyOptions(options: HandlerOptions): void {
  for (const key of ['sweepToken', 'queue', 'leaseMs', 'onInteraction'] as const) {
    if (options[key] !== undefined) {
      throw invalid(
        `\`${key}\` is for store mode, and this handler is client-held only: use createHandler with a \`store\`, or leave \`${key}\` out.`,
      );
    }
  }
}

/** Checks every option, store mode's included, and returns the normalised base path ('' for none). */
export function checkOptions(options: HandlerOptions): { basePath: string; maxBodyBytes: number } {
  const checked = checkCommonOptions(options);
  checkStoreOnlyOptions(options);
  return checked;
}

/** Checks the options both modes read and returns the normalised base path ('' for none). */
export function checkCommonOptions(options: HandlerOptions): { basePath: string; maxBodyBytes: number } {
  if (!options || typeof options.agent?.name !== 'string') {
    throw invalid('pass `agent`, an agent made by defineAgent.');
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw invalid('`token` must be a non-empty string.');
  }
  if (options.token !== undefined && /\s/.test(options.token)) {
    throw invalid(
      '`token` contains whitespace, so no `Authorization: Bearer` header could ever carry it: remove the whitespace (trim the value you read from the environment).',
    );
  }
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret === '')) {
    throw invalid('`secret` must be a non-empty string.');
  }
  checkCount(options.maxBodyBytes, 'maxBodyBytes', 'createHandler');
  checkCount(options.heartbeatMs, 'heartbeatMs', 'createHandler');
  checkCount(options.maxQueuedBytes, 'maxQueuedBytes', 'createHandler');
  checkCount(options.replayTtlMs, 'replayTtlMs', 'createHandler');
  checkProtection(options);
  if (options.cors !== undefined) {
    const origins = options.cors.origins;
    if (!Array.isArray(origins) || origins.length === 0 || origins.some((o) => typeof o !== 'string')) {
      throw invalid('`cors.origins` must be a non-empty list of origins such as "https://app.example".');
    }
  }
  checkMounts(options.protocols);
  let basePath = options.basePath ?? '';
  if (basePath !== '' && !basePath.startsWith('/')) {
    throw invalid(`basePath must start with "/", got ${JSON.stringify(basePath)}.`);
  }
  basePath = basePath.replace(/\/+$/, '');
  return { basePath, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
}
