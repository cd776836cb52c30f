/**
 * Replay protection of client-held threads (`replay: 'reject'`, as in `createHandler`). A client
 * could post an older `state.turnkit` of its thread again and fork the run, running its tools
 * again; with `replay: 'reject'` a snapshot changes the run at most once. Its SHA-256 is claimed
 * in the replay store before the run goes on, and given back when nothing ran (the request was
 * refused before any model or tool call) or when the run did not change.
 */
import { createHash } from 'node:crypto';
import { parseSnapshot } from '@turnkit/core';
import type { ReplayStore } from '../../http/index.js';
import { HttpProblem } from '../../http/index.js';

/** A claimed snapshot: give it back with `release` when the run did not go on from it. */
export interface SnapshotClaim {
  release(): Promise<void>;
}

/** Claims an authenticated snapshot once; refuses one already used, or too old to be remembered. */
export async function claimSnapshot(
  guard: { store: ReplayStore; ttlMs: number },
  snapshot: string,
  secret: string,
  now: Date,
): Promise<SnapshotClaim> {
  const age = now.getTime() - Date.parse(parseSnapshot(snapshot, { secret }).createdAt);
  if (age > guard.ttlMs) {
    throw new HttpProblem(
      'CONFLICT',
      `The thread's state.turnkit is older than the handler's replayTtlMs (${guard.ttlMs} ms), so it can no longer be checked for replays and is refused: start a new thread.`,
    );
  }
  const key = createHash('sha256').update(snapshot, 'utf8').digest('hex');
  if (!(await guard.store.claim(key, guard.ttlMs))) {
    throw new HttpProblem(
      'CONFLICT',
      "This state.turnkit was already used to go on with the thread (the handler has replay: 'reject'): send the state of the thread's latest STATE_SNAPSHOT.",
    );
  }
  return { release: () => guard.store.release(key) };
}
