/**
 * @turnkit/adapters — durable snapshot stores and the JSONL event log.
 *
 * The OpenAI model adapter is only at `@turnkit/adapters/openai`, so importing this entry never
 * loads the `openai` package. Each store also has its own subpath (`/file`, `/redis`, `/postgres`,
 * `/events`); none of them loads `ioredis` or `pg` (they receive your client), and neither do the
 * event hubs shared across processes (`redisEventHub`, `postgresEventHub`). The AI SDK adapter
 * (`aiSdkHandler` for `useChat`, `aiSdkModel`) is only at `@turnkit/adapters/ai-sdk`, and its browser
 * half (`turnkitSendAutomaticallyWhen`) at `@turnkit/adapters/ai-sdk/client`. Background turns
 * (`bullmqQueue`, `memoryQueue`, `createWorker`) load `bullmq` only when a BullMQ queue is first used.
 */

export type {
  PgListenClient,
  PgNotification,
  PgPool,
  PostgresEventHub,
  PostgresEventHubOptions,
  RedisEventHubOptions,
} from './events/hubs/index.js';
export { postgresEventHub, redisEventHub } from './events/hubs/index.js';
export type {
  EventHub,
  EventHubOptions,
  HubListener,
  HubMessage,
  SubscribeOptions,
  Subscription,
  Unsubscribe,
} from './events/index.js';
export type { JsonlEventLog, JsonlEventLogOptions } from './events/jsonl-event-log.js';
export { jsonlEventLog, REDACTED, readEvents, redactEvent } from './events/jsonl-event-log.js';
export type {
  BullmqQueueOptions,
  ConsumeOptions,
  DeadLetter,
  JobDelivery,
  JobHandler,
  MemoryQueueOptions,
  QueueConsumer,
  TurnJob,
  TurnQueue,
  TurnWorker,
  WorkerOptions,
} from './queue/index.js';
export { bullmqQueue, createWorker, memoryQueue } from './queue/index.js';
export type { FileStoreOptions } from './stores/file-store.js';
export { fileStore } from './stores/file-store.js';
export type {
  PgNamedQuery,
  PgQueryable,
  PostgresStore,
  PostgresStoreOptions,
} from './stores/postgres-store.js';
export { postgresStore } from './stores/postgres-store.js';
export type { RedisStoreOptions } from './stores/redis-store.js';
export { redisStore } from './stores/redis-store.js';
