/**
 * More time for an ask (DESIGN §30): `sessions.extend(runId, interactionId, { ms })` moves one
 * pending interaction's expiry `ms` later, in a compare-and-set write of the run at rest, and with
 * it the run's next wake for the sweeper (a reminder is due again before the new expiry). An
 * assignee of the ask or the run's principal may extend it (the app's own code, with no principal,
 * too); anyone else gets `NOT_ASSIGNEE`, or `RUN_NOT_FOUND` where the run is hidden from them.
 */
import { AnswerError, ConflictError, StateError } from '../errors.js';
import { now, type Run, responseFields, stateOf } from '../interpreter/index.js';
import { pendingInteractions, type StoredInteraction } from '../machine/index.js';
import type { TurnOptions } from '../types.js';
import type { ExtendRequest, SessionResult } from './api.js';
import { earliestExpiry, writeRun } from './rows.js';
import type { SnapshotStore } from './store.js';
import { isClaim, type SessionTurns, sessionResult } from './turns.js';

/** How often an extension is tried again when the run changed between its read and its write. */
const ATTEMPTS = 5;

/** The request's `ms`, checked: a whole number of milliseconds > 0. */
function msOf(given: ExtendRequest | undefined): number {
  const { ms } = responseFields(given) as { ms?: unknown };
  if (!Number.isSafeInteger(ms) || (ms as number) <= 0) {
    throw new AnswerError(
      [{ path: ['ms'], message: `Must be a whole number of milliseconds > 0, got ${JSON.stringify(ms)}` }],
      'The extension',
    );
  }
  return ms as number;
}

/** Refuses, with `NOT_ASSIGNEE`, a caller who is neither an assignee of the ask nor the run's principal. */
function checkExtender(run: Run, interaction: StoredInteraction): void {
  const who = run.options.principal;
  if (who === undefined || who === run.principal) return;
  if (interaction.assignees ? interaction.assignees.includes(who) : run.principal === undefined) return;
  throw new StateError(
    'NOT_ASSIGNEE',
    `Principal ${JSON.stringify(who)} may not extend interaction ${interaction.id}: only its assignees or the principal that started the run may. Nothing changed.`,
  );
}

/** `sessions.extend`: see {@link Sessions.extend}. */
export async function extendAsk(
  turns: SessionTurns,
  store: SnapshotStore,
  runId: string,
  interactionId: string,
  request: ExtendRequest,
  options: TurnOptions,
): Promise<SessionResult<unknown>> {
  const ms = msOf(request);
  for (let attempt = 1; ; attempt++) {
    const loaded = await turns.load(runId, options, 'assignee');
    const { run } = loaded;
    if (turns.leased(loaded) || isClaim(run)) throw turns.busy(runId);
    const interaction =
      stateOf(run) === 'waitingInput'
        ? pendingInteractions(run.state.context).find((pending) => pending.id === interactionId)
        : undefined;
    if (!interaction) {
      throw new StateError(
        'INTERACTION_NOT_FOUND',
        `Run ${runId} has no pending interaction ${JSON.stringify(interactionId)} to extend: load the run to see what it waits for.`,
      );
    }
    checkExtender(run, interaction);
    if (interaction.expiresAt === null) {
      throw new StateError(
        'WRONG_KIND',
        `Interaction ${interactionId} never expires, so there is nothing to extend. Nothing changed.`,
      );
    }
    const expires = Date.parse(interaction.expiresAt);
    if (expires <= now(run).getTime()) {
      throw new StateError(
        'NOT_WAITING',
        `Interaction ${interactionId} expired at ${interaction.expiresAt}: the sweeper resolves it as timed out, and it can no longer be extended.`,
      );
    }
    interaction.expiresAt = new Date(expires + ms).toISOString();
    try {
      const written = await writeRun(store, run, loaded.logs, {
        expectedVersion: loaded.version,
        lease: null,
        expiresAt: earliestExpiry(run),
      });
      return sessionResult(run, written.snapshot, written.version, undefined, written.logs);
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= ATTEMPTS) throw error;
      // The run moved between the read and the write (a reminder, an answer): read it again.
    }
  }
}
