/**
 * The options of `createHandler`, and their checks: a handler that could not work safely (no
 * signing secret in client-held mode, a nonsensical limit) is refused when it is built, with
 * `TurnkitError` `CONFIG_INVALID`, never on the first request.
 */
import { type Agent, type AgentEvent, type SnapshotStore, TurnkitError } from '@turnkit/core';
import type { Authorize } from './auth.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';

/** Options of `createHandler`. */
export interface HandlerOptions {
  agent: Agent;
  /** Store mode: runs live here between requests. Without it the handler is in client-held mode. */
  store?: SnapshotStore;
  /**
   * HMAC secret for snapshots (default: the agent's `snapshot.secret`). Required without a store,
   * at least 32 characters; with a store it signs the snapshots at rest.
   */
  secret?: string;
  /** Path prefix of every route, e.g. `/api/agent` (default: none). */
  basePath?: string;
  /** Bearer token every request must carry (`Authorization: Bearer …`), compared in constant time. */
  token?: string;
  /** Your own access check (cookies, JWT…); with `token` too, both must pass. */
  authorize?: Authorize;
  /** CORS for browsers on other origins (off by default). `['*']` allows any origin. */
  cors?: { origins: string[]; maxAgeSeconds?: number };
  /** Largest request body in bytes (default 1 MiB), enforced while reading. */
  maxBodyBytes?: number;
  /** Store mode: how long a request's claim on a run holds (default 60 000 ms, see `createSessions`). */
  leaseMs?: number;
  /** Include the transcript in responses and `state` events (default true). */
  messages?: boolean;
  /** Builds the application `context` of a new run from its `POST /runs` request (e.g. the user id). */
  context?: (request: Request) => unknown | Promise<unknown>;
  /** Also receives every event of the turns this handler plays (e.g. `jsonlEventLog(dir).onEvent`). */
  onEvent?: (event: AgentEvent) => void;
  /** Receives server faults (500s) and throwing `authorize` calls. Default: `console.error`. */
  onError?: (error: unknown, request: Request) => void;
  /** Interval of SSE heartbeat comments (default 15 000 ms). */
  heartbeatMs?: number;
  /** The clock for expiry and leases (default: the system clock). */
  now?: () => Date;
}

function invalid(message: string): TurnkitError {
  return new TurnkitError('CONFIG_INVALID', `createHandler: ${message}`);
}

function positiveInteger(value: number | undefined, name: string): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
    throw invalid(`${name} must be a positive integer, got ${String(value)}.`);
  }
}

/** Checks the options and returns the normalised base path ('' for none). */
export function checkOptions(options: HandlerOptions): { basePath: string; maxBodyBytes: number } {
  if (!options || typeof options.agent?.name !== 'string') {
    throw invalid('pass `agent`, an agent made by defineAgent.');
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw invalid('`token` must be a non-empty string.');
  }
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret === '')) {
    throw invalid('`secret` must be a non-empty string.');
  }
  positiveInteger(options.maxBodyBytes, 'maxBodyBytes');
  positiveInteger(options.leaseMs, 'leaseMs');
  positiveInteger(options.heartbeatMs, 'heartbeatMs');
  if (options.cors !== undefined) {
    const origins = options.cors.origins;
    if (!Array.isArray(origins) || origins.length === 0 || origins.some((o) => typeof o !== 'string')) {
      throw invalid('`cors.origins` must be a non-empty list of origins such as "https://app.example".');
    }
  }
  let basePath = options.basePath ?? '';
  if (basePath !== '' && !basePath.startsWith('/')) {
    throw invalid(`basePath must start with "/", got ${JSON.stringify(basePath)}.`);
  }
  basePath = basePath.replace(/\/+$/, '');
  return { basePath, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
}
