/**
 * @turnkit/adapters/http — a TurnKit agent as a Web-standard HTTP handler (`Request → Response`):
 * runs, answers, approvals and live Server-Sent Events, with errors as RFC 9457 problem details.
 */

export type {
  EventHub,
  EventHubOptions,
  HubListener,
  HubMessage,
  RunView,
  SubscribeOptions,
  Subscription,
  Unsubscribe,
} from '../events/index.js';
export { createEventHub, STATE_MESSAGES_MAX_CHARS } from '../events/index.js';
export type { Authorize, AuthorizeResult, RouteInfo, RouteName } from './auth.js';
export { ROUTE_NAMES } from './auth.js';
export { DEFAULT_MAX_BODY_BYTES } from './body.js';
export { eventsToken, MIN_SECRET_LENGTH } from './client-held.js';
export { createClientHeldHandler, createHandler } from './handler.js';
export type {
  FetchHandler,
  HandlerOptions,
  MountDeps,
  MountOptions,
  ProtocolMount,
  ProtocolMountOptions,
} from './options.js';
export { DEFAULT_REPLAY_TTL_MS } from './options.js';
export type { HttpProblemCode, ProblemBody, ProblemCode } from './problem.js';
export { PROBLEM_STATUS } from './problem.js';
export type { RedisReplayClient, ReplayStore } from './replay.js';
export { memoryReplayStore, redisReplayStore } from './replay.js';
export { DEFAULT_MAX_QUEUED_BYTES } from './sse.js';
