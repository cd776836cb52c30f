/**
 * `onInteraction` (DESIGN §20): each new pending interaction is announced once its pause is stored,
 * at least once. The run remembers which ids it announced (`notified`, in the snapshot): a call
 * that finds a run at rest with pending ids it has not announced — the call that paused it, or the
 * next call of any kind (`get`, `sweep`…) when a process died between the write and the
 * announcement — calls `onInteraction` for each, then records them with a compare-and-set write.
 * Two calls racing may both announce an id: the interaction id is the key to dedupe on. The
 * sessions' own `onInteraction` wins over the agent's (`defineAgent({ onInteraction })`).
 */
import { ConflictError, TurnkitError } from '../errors.js';
import { type Run, stateOf } from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import type { StoredLogs } from '../snapshot/index.js';
import type { OnInteraction } from '../tools/index.js';
import type { TurnOptions } from '../types.js';
import type { SessionResult } from './api.js';
import { earliestExpiry, writeRun } from './rows.js';
import type { SnapshotStore } from './store.js';
import { originOf, sessionResult } from './turns.js';

export type { OnInteraction };

/**
 * The `onInteraction` sessions call: their own (`createSessions`, or `createHandler` through them)
 * wins over the agent's `onInteraction`; undefined when neither has one.
 */
export function onInteractionOf(
  configured: OnInteraction | undefined,
  agentOption: OnInteraction | undefined,
): OnInteraction | undefined {
  if (configured !== undefined && typeof configured !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', 'createSessions: onInteraction must be a function.');
  }
  return configured ?? agentOption;
}

/**
 * Announces the pending interactions of `result`'s run that were not announced yet, then records
 * them in the run (a compare-and-set write of the head; refused: someone moved the run, and their
 * call announces what is left). Returns the result as stored after that write, or as given.
 */
export async function announce(
  store: SnapshotStore,
  onInteraction: OnInteraction,
  result: SessionResult<unknown>,
  options: TurnOptions,
  inFlight: Set<string>,
): Promise<SessionResult<unknown>> {
  const origin = originOf(result);
  if (!origin || result.status !== 'needs_input') return result;
  const { run } = origin;
  if (stateOf(run) !== 'waitingInput') return result;
  const notified = new Set(run.notified ?? []);
  // Skipped while this process announces them already (an onInteraction that reads the run itself).
  const key = (id: string) => `${run.runId}\n${id}`;
  const fresh = result.pending.filter(
    (pending) => !notified.has(pending.id) && !inFlight.has(key(pending.id)),
  );
  if (fresh.length === 0) return result;
  for (const pending of fresh) inFlight.add(key(pending.id));
  try {
    const announced: string[] = [];
    for (const pending of fresh) {
      try {
        await onInteraction(pending, result, { reason: 'asked' });
        announced.push(pending.id);
      } catch (error) {
        // Not recorded: the next call on this run announces it again.
        reportError(options, run, error);
      }
    }
    if (announced.length === 0) return result;
    return await record(store, result, run, origin.logs, [...notified, ...announced]);
  } finally {
    for (const pending of fresh) inFlight.delete(key(pending.id));
  }
}

/** Records the announced ids (those still pending) with a compare-and-set write of the run. */
async function record(
  store: SnapshotStore,
  result: SessionResult<unknown>,
  run: Run,
  logs: StoredLogs | undefined,
  announced: string[],
): Promise<SessionResult<unknown>> {
  const pendingIds = new Set(pendingInteractions(run.state.context).map((interaction) => interaction.id));
  run.notified = announced.filter((id) => pendingIds.has(id));
  try {
    const written = await writeRun(store, run, logs, {
      expectedVersion: result.version,
      lease: null,
      expiresAt: earliestExpiry(run),
    });
    return sessionResult(run, written.snapshot, written.version, undefined, written.logs);
  } catch (error) {
    if (error instanceof ConflictError) return result;
    throw error;
  }
}

function reportError(options: TurnOptions, run: Run, error: unknown): void {
  try {
    options.onError?.(error, { runId: run.runId, agentPath: run.agentPath });
  } catch {
    // An onError that throws never breaks the call.
  }
}
