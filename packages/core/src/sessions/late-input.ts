/**
 * Late input (DESIGN §30): `sessions.send(runId, message, { mode: 'queue' })`. The message is kept
 * on the run's row, beside its versioned content (`store.queueMessage`), under an id of its own:
 * - while a turn plays, the worker holding it sees the queue (its claim's read, then its renewals:
 *   `message_queued`) and adds the message to the transcript before its next model call
 *   (`message_delivered`). Both events are the worker's, so they take their place in the run's
 *   sequence like every other;
 * - while the run waits on asks, it stays queued until they are answered: the turn that answers
 *   delivers it the same way;
 * - a run at rest otherwise gets it as a new turn at once (there is nothing to wait for).
 * Once: the write that first stores a transcript holding the message removes it from the queue in
 * the same atomic step (`PutOptions.dequeue`). A worker that dies before that write leaves it
 * queued, and the worker that takes the turn over delivers it; its own write then dequeues it. A
 * message that lands after the worker's last look is in the queue its result write returns: the
 * run, now at rest, goes on with it (or, waiting on asks, keeps it).
 */
import { ConflictError, TurnkitError } from '../errors.js';
import {
  beginTurn,
  markInDoubt,
  newRunId,
  sendUserMessage,
  stateOf,
  toMessages,
} from '../interpreter/index.js';
import type { ChatMessage } from '../types.js';
import type { SendOptions, SessionOptions, SessionResult } from './api.js';
import { announceDelivered, leftQueue, noticeQueued, readQueue, take } from './queued.js';
import type { SnapshotStore } from './store.js';
import { isClaim, originOf, type SessionTurns } from './turns.js';

/**
 * Plays a new turn on a run at rest that has queued messages and no asks waiting (a message that
 * landed as its last turn ended): the messages are its input, dequeued by the claim. Returns null
 * when there is nothing to play (no queue, asks waiting, stopped, or another request got there first).
 */
export async function playQueued(
  turns: SessionTurns,
  runId: string,
  options: SessionOptions,
): Promise<SessionResult<unknown> | null> {
  const loaded = await turns.load(runId, options);
  const { run } = loaded;
  if (turns.leased(loaded)) return null;
  // A turn whose worker died: taken over, and its queue delivered before its next model call.
  if (isClaim(run)) return readQueue(run) !== undefined ? turns.recover(loaded, options) : null;
  const state = stateOf(run);
  // Kept until the asks are answered; a stopped run goes on only when asked to (`send`, `retry`).
  if (state === 'waitingInput' || state === 'aborted') return null;
  const entries = readQueue(run) ?? [];
  if (entries.length === 0) return null;
  beginTurn(run, 'input');
  markInDoubt(run);
  noticeQueued(run, entries);
  const { taken, messages } = take(run, entries);
  sendUserMessage(run, messages);
  announceDelivered(run, taken);
  try {
    return await turns.claimAndRun(run, loaded.version, loaded.logs, options);
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
}

/** Whether the run behind `result` rests with messages its last write left queued (see {@link playQueued}). */
export function hasLeftQueued(result: SessionResult<unknown>): boolean {
  const run = originOf(result)?.run;
  return run !== undefined && leftQueue(run) && !isClaim(run) && stateOf(run) !== 'waitingInput';
}

/**
 * `send` with `mode: 'queue'` on a run that a turn plays, or whose asks wait: the message is queued
 * on the row. Returns the run's state with `queued: { messageId }`, or null when the run rests with
 * nothing to wait for (the caller then sends the message as a new turn).
 */
export async function queueInput(
  turns: SessionTurns,
  store: SnapshotStore,
  runId: string,
  input: string | ChatMessage[],
  options: SendOptions,
): Promise<SessionResult<unknown> | null> {
  const { mode: _mode, messageId: given, ...turnOptions } = options;
  const messageId = given ?? newRunId();
  if (typeof messageId !== 'string' || messageId === '' || messageId.length > 200) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'sessions.send: messageId must be a non-empty string of at most 200 characters.',
    );
  }
  const messages = toMessages(input);
  const loaded = await turns.load(runId, turnOptions);
  const playing = turns.leased(loaded) || isClaim(loaded.run);
  if (!playing && stateOf(loaded.run) !== 'waitingInput') return null;
  if (typeof store.queueMessage !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `sessions.send: this store cannot queue a message (it has no queueMessage). Use a store of this release (memory, file, Redis, Postgres), or send with mode 'supersede'.`,
    );
  }
  const queued = await store.queueMessage(runId, { id: messageId, messages: JSON.stringify(messages) });
  if (!queued) return null;
  // No worker held the run when the message landed: a turn that ended meanwhile goes on with it.
  const played = queued.live ? null : await playQueued(turns, runId, turnOptions);
  const result = played ?? turns.current(await turns.load(runId, turnOptions));
  result.queued = { messageId };
  return result;
}
