/**
 * Event hubs shared across processes (DESIGN §17): a handler's SSE streams follow a run whichever
 * process plays its turns, and resume from `Last-Event-ID`. The in-process hub is `createEventHub`
 * in `@turnkit/adapters/http`. Apart from `events/index.ts`, so the handler, which reaches events
 * through that door, never bundles them.
 */
export type { PgPool, PostgresEventHub, PostgresEventHubOptions } from './postgres.js';
export { postgresEventHub } from './postgres.js';
export type { PgListenClient, PgNotification } from './postgres-listen.js';
export type { RedisEventHubOptions } from './redis.js';
export { redisEventHub } from './redis.js';
