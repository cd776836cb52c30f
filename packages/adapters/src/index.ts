/**
 * @turnkit/adapters — durable snapshot stores and the JSONL event log.
 *
 * The OpenAI model adapter is only at `@turnkit/adapters/openai`, so importing this entry never
 * loads the `openai` package. Each store also has its own subpath (`/file`, `/redis`, `/postgres`,
 * `/events`); none of them loads `ioredis` or `pg` (they receive your client).
 */

export type { FileStoreOptions } from './file-store.js';
export { fileStore } from './file-store.js';
export type { JsonlEventLog, JsonlEventLogOptions } from './jsonl-event-log.js';
export { jsonlEventLog, readEvents } from './jsonl-event-log.js';
export type { PgQueryable, PostgresStore, PostgresStoreOptions } from './postgres-store.js';
export { postgresStore } from './postgres-store.js';
export type { RedisStoreOptions } from './redis-store.js';
export { redisStore } from './redis-store.js';
