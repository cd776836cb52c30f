/**
 * The door of `http/` for the folders above it (the protocol mounts): the public API of
 * `@turnkit/adapters/http` (public.ts) plus the parts a mount is built from — the token gate and
 * CORS, body reading, the portable crypto, client-held signing, option checks, problem details, SSE framing — and the
 * `ProtocolMount` interface through which `createHandler` is handed a mount.
 */
export type { Authorize, RouteInfo } from './auth.js';
export {
  authorizeRoute,
  callerPrincipal,
  corsPolicy,
  forNewRun,
  tokenGate,
  unauthorizedResponse,
} from './auth.js';
export { DEFAULT_MAX_BODY_BYTES, readJson, readLimited } from './body.js';
export { assertSigning, clientHeldBackend, nothingRan, withKeys } from './client-held.js';
export { hmacSha256, randomBytes, sha256Hex, sha256HexSync } from './crypto.js';
export type {
  FetchHandler,
  HandlerOptions,
  MountDeps,
  MountOptions,
  ProtocolMount,
  ProtocolMountOptions,
} from './options.js';
export { checkOptions, DEFAULT_REPLAY_TTL_MS } from './options.js';
export { HttpProblem, problemResponse, servedWithProblems, toProblem } from './problem.js';

export type { ReplayGuard, ReplayStore, SnapshotClaim } from './replay.js';
export { claimSnapshot } from './replay.js';
export type { HandlerEnv } from './routes.js';
export { bodySchemas, parseBody } from './schemas.js';
export { DEFAULT_MAX_QUEUED_BYTES, formatSse } from './sse.js';
