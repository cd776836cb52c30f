/** Background turns (DESIGN §17): the queue interface, BullMQ's, one in memory, and the worker. */
export type { BullmqQueueOptions } from './bullmq.js';
export { bullmqQueue } from './bullmq.js';
export type { MemoryQueueOptions } from './memory.js';
export { memoryQueue } from './memory.js';
export type {
  ConsumeOptions,
  DeadLetter,
  JobDelivery,
  JobHandler,
  QueueConsumer,
  TurnJob,
  TurnQueue,
} from './types.js';
export type { TurnWorker, WorkerOptions } from './worker.js';
export { createWorker } from './worker.js';
