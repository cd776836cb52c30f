/**
 * The bookkeeping of late input (DESIGN §30, see late-input.ts) for each run loaded in this
 * process: the queue read with it, which queued messages its transcript received here, which of
 * those a write has yet to remove from the queue (`PutOptions.dequeue`), and what its last write
 * left queued. rows.ts feeds it on every read and write; the fence delivers through it.
 */
import { emit, type Run } from '../interpreter/index.js';
import type { ChatMessage } from '../types.js';
import type { QueuedMessage } from './store.js';

/** The queue read with each run (its claim's or its load's read). */
const readQueues = new WeakMap<Run, QueuedMessage[]>();
/** Ids of queued messages added to each run's transcript by this process. */
const deliveredIds = new WeakMap<Run, Set<string>>();
/** Ids of queued messages this process announced (`message_queued`) on each run. */
const noticedIds = new WeakMap<Run, Set<string>>();
/** Ids delivered and not yet removed from the queue by a successful write. */
const toDequeue = new WeakMap<Run, string[]>();
/** What each run's last write at rest left queued (`WriteResult.queued`). */
const leftQueued = new WeakMap<Run, QueuedMessage[]>();

/** Records the queue read with `run` (rows.ts, on every read). */
export function noteQueue(run: Run, queued: QueuedMessage[] | undefined): void {
  if (queued?.length) readQueues.set(run, queued);
}

/** The ids a write of `run` delivered (its `dequeue`), if any. */
export function dequeueOf(run: Run): string[] | undefined {
  const ids = toDequeue.get(run);
  return ids?.length ? [...ids] : undefined;
}

/** After a successful write of `run`: the ids it dequeued are gone, and what it left queued is noted. */
export function afterWrite(
  run: Run,
  dequeued: string[] | undefined,
  left: QueuedMessage[] | undefined,
): void {
  if (dequeued)
    toDequeue.set(
      run,
      (toDequeue.get(run) ?? []).filter((id) => !dequeued.includes(id)),
    );
  if (left?.length) leftQueued.set(run, left);
  else leftQueued.delete(run);
}

/** The queued entries not yet delivered to `run` (marked delivered), and their messages in order. */
export function take(
  run: Run,
  entries: QueuedMessage[],
): { taken: { id: string; messages: ChatMessage[] }[]; messages: ChatMessage[] } {
  const seen = deliveredIds.get(run) ?? new Set<string>();
  deliveredIds.set(run, seen);
  const taken: { id: string; messages: ChatMessage[] }[] = [];
  for (const entry of entries) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    taken.push({ id: entry.id, messages: JSON.parse(entry.messages) as ChatMessage[] });
  }
  toDequeue.set(run, [...(toDequeue.get(run) ?? []), ...taken.map(({ id }) => id)]);
  return { taken, messages: taken.flatMap((entry) => entry.messages) };
}

/** Emits `message_delivered` for each entry `take` returned, with its messages (a recording's late input). */
export function announceDelivered(run: Run, taken: { id: string; messages: ChatMessage[] }[]): void {
  for (const { id, messages } of taken) emit(run, { type: 'message_delivered', messageId: id, messages });
}

/**
 * Emits `message_queued` for the entries `run` has not announced yet: the worker playing the turn
 * now holds them (a renewal returned them, or its read did) and adds them before its next model call.
 */
export function noticeQueued(run: Run, entries: QueuedMessage[]): void {
  const noticed = noticedIds.get(run) ?? new Set<string>();
  noticedIds.set(run, noticed);
  const delivered = deliveredIds.get(run);
  for (const { id } of entries) {
    if (noticed.has(id) || delivered?.has(id)) continue;
    noticed.add(id);
    emit(run, { type: 'message_queued', messageId: id });
  }
}

/**
 * The fence's `lateInput`: adds to `run`'s transcript the queued messages it has not delivered —
 * those read with the run, and those the hold's last renewal returned — right before a model call.
 */
export function deliverLate(run: Run, renewed: QueuedMessage[]): void {
  const entries = [...(readQueues.get(run) ?? []), ...renewed];
  noticeQueued(run, entries);
  const { taken, messages } = take(run, entries);
  if (taken.length === 0) return;
  const { value, context } = run.state;
  // The step is settled (a model call is next), so a user message may follow it.
  run.state = { value, context: { ...context, messages: [...context.messages, ...messages] } };
  announceDelivered(run, taken);
}

/** The queue read with `run`, if it had one. */
export function readQueue(run: Run): QueuedMessage[] | undefined {
  return readQueues.get(run);
}

/** Whether `run`'s last write left messages queued. */
export function leftQueue(run: Run): boolean {
  return leftQueued.has(run);
}
