/**
 * Sessions (DESIGN §7): runs kept in a `SnapshotStore` between requests, safe across any number of
 * stateless workers. Every call claims before it acts: load → apply the response to the machine
 * (running nothing) → compare-and-set that state with a lease → run tools and model → CAS-write the
 * result. A request that loses the claim fails before any tool runs.
 */
import type { Agent } from './agent.js';
import { assertSerializable } from './context.js';
import { ConflictError, StateError } from './errors.js';
import { beginTurn, continueTurn, sendUserMessage } from './loop.js';
import type { ResolvedRecord } from './machine.js';
import { normalizeAnswers, sameAnswers } from './questions/index.js';
import { applyResolutions, prepareResolutions, type ResponseInput } from './respond.js';
import {
  encodeRun,
  loadRun,
  newRun,
  newRunId,
  now,
  pendingOf,
  type Run,
  resultOf,
  send,
  stateOf,
} from './run.js';
import type { SnapshotStore } from './stores.js';
import type { ChatMessage, TurnOptions, TurnResult } from './types.js';

/** A turn result plus the version under which the store now holds the run. */
export interface SessionResult extends TurnResult {
  version: number;
}

/** What {@link Sessions.start} takes. */
export type SessionStart =
  | string
  | ChatMessage[]
  | { input: string | ChatMessage[]; context?: unknown; runId?: string };

/** Runs kept in a store; see {@link createSessions}. */
export interface Sessions {
  /** Starts a run and plays its first turn. */
  start(input: SessionStart, options?: TurnOptions): Promise<SessionResult>;
  answer(
    runId: string,
    answer: Omit<Extract<ResponseInput, { type: 'answer' }>, 'type'>,
    options?: TurnOptions,
  ): Promise<SessionResult>;
  approve(
    runId: string,
    decision?: { id?: string; rationale?: string; editedInput?: unknown },
    options?: TurnOptions,
  ): Promise<SessionResult>;
  reject(
    runId: string,
    decision?: { id?: string; rationale?: string },
    options?: TurnOptions,
  ): Promise<SessionResult>;
  cancel(
    runId: string,
    cancel?: { id?: string; reason?: string },
    options?: TurnOptions,
  ): Promise<SessionResult>;
  /** The generic form: several responses at once. */
  respond(runId: string, responses: ResponseInput[], options?: TurnOptions): Promise<SessionResult>;
  /** Sends the next user message (superseding whatever is pending). */
  send(runId: string, input: string | ChatMessage[], options?: TurnOptions): Promise<SessionResult>;
  /** Retries a failed, aborted or max_steps run, or finishes the turn of a worker that died. */
  retry(runId: string, options?: TurnOptions): Promise<SessionResult>;
  /** Resolves whatever has expired (for a sweeper over `store.listExpired`); nothing expired: the run as it is. */
  expire(runId: string, options?: TurnOptions): Promise<SessionResult>;
  /** The run's current state: status `running` while a worker holds it. */
  get(runId: string, options?: TurnOptions): Promise<SessionResult>;
}

/** Options of {@link createSessions}. */
export interface SessionsConfig {
  agent: Agent;
  store: SnapshotStore;
  /** How long a worker's claim holds before another request may take the run over (default 60 000 ms). */
  leaseMs?: number;
}

type Loaded = { run: Run; snapshot: string; version: number; leased: boolean };

/**
 * Creates sessions over a store.
 *
 * @example
 * const sessions = createSessions({ agent, store: memoryStore() });
 * const r1 = await sessions.start('Thaw one K562 vial');
 * const r2 = await sessions.answer(r1.runId, { answers: { 'Cell line': 'K562' } });
 */
export function createSessions(config: SessionsConfig): Sessions {
  const { agent, store } = config;
  const leaseMs = config.leaseMs ?? 60_000;

  async function load(runId: string, options: TurnOptions): Promise<Loaded> {
    const row = await store.get(runId);
    if (!row)
      throw new StateError(
        'RUN_NOT_FOUND',
        `No run with id ${JSON.stringify(runId)} is stored: start one with sessions.start().`,
      );
    const run = loadRun(agent, row.snapshot, options);
    const leased = run.lease !== undefined && Date.parse(run.lease.expiresAt) > now(run).getTime();
    return { run, snapshot: row.snapshot, version: row.version, leased };
  }

  function current(loaded: Loaded): SessionResult {
    const status = loaded.leased || loaded.run.lease ? 'running' : undefined;
    return { ...resultOf(loaded.run, loaded.snapshot, status), version: loaded.version };
  }

  /** Claims the prepared run, plays the turn, and writes its result. */
  async function claimAndRun(run: Run, expectedVersion: number | null): Promise<SessionResult> {
    const lease = { owner: newRunId(), expiresAt: new Date(now(run).getTime() + leaseMs).toISOString() };
    const claim = await store.put(run.runId, encodeRun(run, lease), { expectedVersion });
    const result = await continueTurn(run);
    const expiresAt = pendingOf(run.state.context)
      .map((interaction) => interaction.expiresAt)
      .filter((value): value is string => value !== null)
      .sort()[0];
    const written = await store.put(run.runId, result.snapshot, {
      expectedVersion: claim.version,
      expiresAt: expiresAt ?? null,
    });
    return { ...result, version: written.version };
  }

  /** A worker died holding the run: take it over and finish its turn from the recorded state. */
  async function recover(loaded: Loaded): Promise<SessionResult> {
    beginTurn(loaded.run, 'continue');
    delete loaded.run.lease;
    return claimAndRun(loaded.run, loaded.version);
  }

  /** Whether `response` repeats a decision already applied: 'same' (idempotent), 'different' (conflict), or null. */
  function repeatOf(run: Run, response: ResponseInput): 'same' | 'different' | null {
    const { resolved } = run.state.context;
    if (response.id !== undefined) {
      const record = resolved.find((item) => item.id === response.id);
      return record ? (sameDecision(record, response) ? 'same' : 'different') : null;
    }
    // Without an id, a response goes to what is pending when something of its kind is; otherwise
    // it can only repeat the latest decision of its kind (a question answered, then an approval asked).
    const kind = response.type === 'answer' ? 'question' : response.type === 'cancel' ? null : 'approval';
    const fits = (item: { kind: string }) => kind === null || item.kind === kind;
    if (pendingOf(run.state.context).some(fits)) return null;
    const record = resolved.findLast(fits);
    if (!record) return null;
    return sameDecision(record, response) ? 'same' : 'different';
  }

  function sameDecision(record: ResolvedRecord, response: ResponseInput): boolean {
    switch (response.type) {
      case 'answer': {
        if (record.resolution !== 'answered' || !record.answers) return false;
        try {
          return sameAnswers(record.answers, normalizeAnswers(record.questions ?? [], response.answers));
        } catch {
          return false;
        }
      }
      case 'approve':
        return (
          record.resolution === 'approved' &&
          record.editedInput ===
            (response.editedInput === undefined ? undefined : JSON.stringify(response.editedInput))
        );
      case 'reject':
        return record.resolution === 'rejected';
      case 'cancel':
        return record.resolution === 'cancelled';
    }
  }

  async function respond(
    runId: string,
    responses: ResponseInput[],
    options: TurnOptions = {},
  ): Promise<SessionResult> {
    const loaded = await load(runId, options);
    if (loaded.run.lease && !loaded.leased) {
      await recover(loaded);
      return respond(runId, responses, options);
    }
    const repeats = responses.map((response) => repeatOf(loaded.run, response));
    if (repeats.length > 0 && repeats.every((repeat) => repeat === 'same')) return current(loaded);
    if (repeats.includes('different')) {
      throw new ConflictError(
        `Run ${runId}: an interaction in this request was already resolved with a different decision; load the run to see its state.`,
      );
    }
    if (loaded.leased) throw busy(runId);
    const resolutions = prepareResolutions(loaded.run, responses);
    beginTurn(loaded.run, 'respond');
    applyResolutions(loaded.run, resolutions);
    try {
      return await claimAndRun(loaded.run, loaded.version);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Lost the claim: if the winner applied this very decision, answer as a repeat would.
      const again = await load(runId, options);
      if (responses.every((response) => repeatOf(again.run, response) === 'same')) return current(again);
      throw error;
    }
  }

  function busy(runId: string): ConflictError {
    return new ConflictError(
      `Run ${runId} is being worked on by another request. Wait for it and load the run again.`,
    );
  }

  return {
    async start(start, options = {}) {
      const request = typeof start === 'string' || Array.isArray(start) ? { input: start } : start;
      if (request.context !== undefined) assertSerializable(request.context, agent.serializer);
      const run = newRun(agent, request.runId ?? newRunId(), request.context, options);
      const messages: ChatMessage[] =
        typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
      beginTurn(run, 'input');
      send(run, { type: 'START', messages, maxSteps: agent.maxSteps });
      return claimAndRun(run, null);
    },
    answer: (runId, answer, options) => respond(runId, [{ ...answer, type: 'answer' }], options),
    approve: (runId, decision = {}, options) => respond(runId, [{ ...decision, type: 'approve' }], options),
    reject: (runId, decision = {}, options) => respond(runId, [{ ...decision, type: 'reject' }], options),
    cancel: (runId, cancel = {}, options) => respond(runId, [{ ...cancel, type: 'cancel' }], options),
    respond,
    async send(runId, input, options = {}) {
      const loaded = await load(runId, options);
      if (loaded.leased) throw busy(runId);
      if (loaded.run.lease) {
        await recover(loaded);
        return this.send(runId, input, options);
      }
      beginTurn(loaded.run, 'input');
      sendUserMessage(loaded.run, typeof input === 'string' ? [{ role: 'user', content: input }] : input);
      return claimAndRun(loaded.run, loaded.version);
    },
    async retry(runId, options = {}) {
      const loaded = await load(runId, options);
      if (loaded.leased) throw busy(runId);
      if (loaded.run.lease) return recover(loaded);
      const state = stateOf(loaded.run);
      if (state !== 'failed' && state !== 'aborted' && state !== 'maxSteps') {
        throw new StateError(
          'NOT_WAITING',
          `Run ${runId} has nothing to retry (it is ${resultOf(loaded.run, '').status}).`,
        );
      }
      beginTurn(loaded.run, 'retry');
      send(loaded.run, { type: 'RETRY', maxSteps: agent.maxSteps });
      return claimAndRun(loaded.run, loaded.version);
    },
    async expire(runId, options = {}) {
      const loaded = await load(runId, options);
      if (loaded.run.lease || stateOf(loaded.run) !== 'waitingInput') return current(loaded);
      const at = now(loaded.run).getTime();
      const expired = pendingOf(loaded.run.state.context).filter(
        (interaction) => interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= at,
      );
      if (expired.length === 0) return current(loaded);
      // Expiry is checked before anything else, so these resolve as timed out (or defaulted).
      return respond(
        runId,
        expired.map((interaction) => ({ id: interaction.id, type: 'cancel' as const })),
        options,
      );
    },
    async get(runId, options = {}) {
      return current(await load(runId, options));
    },
  };
}
