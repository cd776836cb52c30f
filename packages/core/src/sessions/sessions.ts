/**
 * Sessions (DESIGN §7, §12): runs kept in a `SnapshotStore` between requests, safe across any
 * number of stateless workers. Every call claims before it acts: load → apply the response to the
 * machine (running nothing) → compare-and-set that state with a lease → run tools and model while
 * renewing the lease → CAS-write the result. A request that loses the claim fails before any tool
 * runs; a worker that loses it mid-turn starts nothing more and writes nothing. Leases are judged
 * by the store alone, on its clock. A new run with a generated id is the exception: nobody can know
 * its id yet, so it is written once, when its turn rests or before its first tool runs (issue 35,
 * `startNew` in turns.ts). The steps themselves are in turns.ts.
 */
import { AnswerError, ConflictError, StateError, TurnkitError } from '../errors.js';
import {
  applyResolutions,
  beginTurn,
  checkResponses,
  markInDoubt,
  newRun,
  newRunId,
  now,
  prepareResolutions,
  type ResponseInput,
  responseFields,
  resultOf,
  send,
  sendSettling,
  sendUserMessage,
  stateOf,
  toMessages,
} from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import { assertSerializable } from '../snapshot/index.js';
import type { TurnOptions } from '../types.js';
import type { SessionOptions, SessionResult, Sessions, SessionsConfig } from './api.js';
import { extendAsk } from './extend.js';
import { forkRun, historyOf } from './history.js';
import { readInbox } from './inbox.js';
import { hasLeftQueued, playQueued, queueInput } from './late-input.js';
import { checkLinkOptions, openLink, signLink, usedLinkError } from './links.js';
import { announce, onInteractionOf } from './notify.js';
import { storedRecording } from './recording.js';
import { escalatedLinkError, keepAsks } from './reminders.js';
import { repeatOf } from './repeats.js';
import { readHead, readTranscript } from './rows.js';
import { stopRun } from './stop.js';
import type { SnapshotStore } from './store.js';
import { type Claim, isClaim, sessionTurns } from './turns.js';

export { TAKEOVER_SEQ_GAP } from './turns.js';

/**
 * `store.listExpired(at)`; a store written before `'now'` existed reads it as a Date and throws a
 * TypeError, and is then asked with the host's clock, as it was before.
 */
async function listExpired(store: SnapshotStore, at: Date | 'now', limit: number): Promise<string[]> {
  if (at !== 'now') return store.listExpired(at, limit);
  try {
    return await store.listExpired('now', limit);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return store.listExpired(new Date(), limit);
  }
}

/**
 * Creates sessions over a store.
 *
 * @example
 * const sessions = createSessions({ agent, store: memoryStore() });
 * const r1 = await sessions.start('Thaw one K562 vial');
 * const r2 = await sessions.answer(r1.runId, { answers: { 'Cell line': 'K562' } });
 */
export function createSessions<TOutput = string>(config: SessionsConfig<TOutput>): Sessions<TOutput> {
  const { agent, store } = config;
  const leaseMs = config.leaseMs ?? 60_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 3) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `createSessions: leaseMs must be an integer >= 3, got ${leaseMs}.`,
    );
  }
  const turns = sessionTurns(agent, store, leaseMs);
  const { load, leased, current, claim, proceed, claimAndRun, recover, playClaim, busy } = turns;
  const onInteraction = onInteractionOf(config.onInteraction, agent.onInteraction);
  const announcing = new Set<string>();
  /** Every call ends here: pending interactions its run has not announced yet are announced. */
  const settle = async (
    given: SessionResult<unknown>,
    options: TurnOptions = {},
  ): Promise<SessionResult<unknown>> => {
    // Messages queued as a turn ended (DESIGN §30) are played now that the run rests; each turn
    // needs a message that landed during the one before, so this ends when people stop typing.
    let result = given;
    while (hasLeftQueued(result)) {
      const played = await playQueued(turns, result.runId, options);
      if (!played) break;
      result = played;
    }
    return onInteraction ? announce(store, onInteraction, result, options, announcing) : result;
  };

  /** Applies responses and plays the turn; with `link` (an answer link's id), records it in the claim, once. */
  async function respondOnce(
    runId: string,
    given: ResponseInput[],
    options: SessionOptions = {},
    link?: string,
  ): Promise<SessionResult<unknown>> {
    // Copied into plain data first: the repeat check below reads the responses before the run does.
    const responses = checkResponses(given);
    const loaded = await load(runId, options, 'assignee');
    if (isClaim(loaded.run) && !leased(loaded)) {
      await recover(loaded);
      return respondOnce(runId, responses, options, link);
    }
    if (link !== undefined && loaded.run.usedLinks?.includes(link)) throw usedLinkError();
    const repeats = responses.map((response) => repeatOf(loaded.run, response));
    if (repeats.length > 0 && repeats.every((repeat) => repeat === 'same')) return current(loaded);
    if (repeats.includes('different')) {
      throw new ConflictError(
        `Run ${runId}: an interaction in this request was already resolved with a different decision; load the run to see its state.`,
      );
    }
    if (leased(loaded)) throw busy(runId);
    const resolutions = prepareResolutions(loaded.run, responses);
    // Only repeated approvals (a principal that already counted towards a quorum): nothing changes.
    if (resolutions.length === 0) return current(loaded);
    beginTurn(loaded.run, 'respond');
    applyResolutions(loaded.run, resolutions);
    if (link !== undefined) loaded.run.usedLinks = [...(loaded.run.usedLinks ?? []), link];
    let claimed: Claim;
    try {
      claimed = await claim(loaded.run, loaded.version, loaded.logs);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Lost the race to claim, before anything ran: if the winner applied this very decision,
      // answer as a repeat would.
      const again = await load(runId, options, 'assignee');
      if (link !== undefined && again.run.usedLinks?.includes(link)) throw usedLinkError();
      if (responses.every((response) => repeatOf(again.run, response) === 'same')) return current(again);
      throw error;
    }
    return proceed(loaded.run, claimed, options);
  }

  const respond = async (runId: string, given: ResponseInput[], options: SessionOptions = {}) =>
    settle(await respondOnce(runId, given, options), options);

  /** Answers the interaction a valid link names, with the link's response or the body. */
  async function answerByLink(
    claims: ReturnType<typeof openLink>,
    body: unknown,
    linkOptions: TurnOptions,
  ): Promise<SessionResult<unknown>> {
    const given = claims.response ?? body;
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      throw new AnswerError(
        [{ path: [], message: 'This link carries no response: send one, e.g. { "type": "approve" }' }],
        'The response',
      );
    }
    let response = given as Record<string, unknown>;
    if (response.type === undefined) {
      // The type follows from what is asked, when only one fits.
      const loaded = await load(claims.runId, linkOptions, 'assignee');
      if (loaded.run.usedLinks?.includes(claims.linkId)) throw usedLinkError();
      const kind = pendingInteractions(loaded.run.state.context).find(
        (interaction) => interaction.id === claims.interactionId,
      )?.kind;
      const type = kind === 'question' ? 'answer' : kind === 'input' ? 'input' : undefined;
      if (type !== undefined) response = { ...response, type };
    }
    const result = await respondOnce(
      claims.runId,
      [{ ...response, id: claims.interactionId } as ResponseInput],
      linkOptions,
      claims.linkId,
    );
    return settle(result, linkOptions);
  }

  const sessions: Sessions<unknown> = {
    async start(start, options = {}) {
      const request = typeof start === 'string' || Array.isArray(start) ? { input: start } : start;
      if (typeof request !== 'object' || request === null) {
        throw new TurnkitError(
          'CONFIG_INVALID',
          'sessions.start takes a message, messages, or { input, context?, runId? }.',
        );
      }
      if (request.context !== undefined) assertSerializable(request.context, agent.serializer);
      const run = newRun(agent, request.runId ?? newRunId(), request.context, options);
      const messages = toMessages(request.input);
      beginTurn(run, 'input', messages);
      send(run, { type: 'START', messages, maxSteps: agent.maxSteps });
      // A generated id is known to nobody before the run is stored: no claim, one write when the
      // turn rests. An id the caller chose may be known to others: claimed first, as a resume is.
      const played =
        request.runId === undefined
          ? await turns.startNew(run, options)
          : await claimAndRun(run, null, undefined, options);
      return settle(played, options);
    },
    answer: async (runId, answer, options) =>
      respond(runId, [{ ...responseFields(answer), type: 'answer' }], options),
    approve: async (runId, decision = {}, options) =>
      respond(runId, [{ ...responseFields(decision), type: 'approve' }], options),
    reject: async (runId, decision = {}, options) =>
      respond(runId, [{ ...responseFields(decision), type: 'reject' }], options),
    cancel: async (runId, cancel = {}, options) =>
      respond(runId, [{ ...responseFields(cancel), type: 'cancel' }], options),
    provideInput: async (runId, input, options) =>
      respond(runId, [{ ...responseFields(input), type: 'input' }], options),
    respond,
    async send(runId, input, given = {}) {
      const { mode = 'supersede', messageId: _id, ...options } = given;
      if (mode !== 'supersede' && mode !== 'queue') {
        throw new TurnkitError(
          'CONFIG_INVALID',
          `sessions.send: mode is 'supersede' (the default) or 'queue', got ${JSON.stringify(mode)}.`,
        );
      }
      // Late input (DESIGN §30): queued while a turn plays or asks wait; at rest otherwise, a new turn.
      const queued = mode === 'queue' ? await queueInput(turns, store, runId, input, given) : null;
      if (queued) return settle(queued, options);
      const loaded = await load(runId, options);
      if (leased(loaded)) throw busy(runId);
      if (isClaim(loaded.run)) {
        await recover(loaded);
        return this.send(runId, input, options);
      }
      const messages = toMessages(input);
      beginTurn(loaded.run, 'input', messages);
      // A call started with no result (its worker died, then the run was stopped) settles by its
      // tool's onInDoubt before the message is read, never "dropped" (DESIGN §21).
      markInDoubt(loaded.run);
      sendUserMessage(loaded.run, messages);
      return settle(await claimAndRun(loaded.run, loaded.version, loaded.logs, options), options);
    },
    async retry(runId, options = {}) {
      const loaded = await load(runId, options);
      if (leased(loaded)) throw busy(runId);
      if (isClaim(loaded.run)) return settle(await recover(loaded, options), options);
      const state = stateOf(loaded.run);
      const retryable = ['failed', 'aborted', 'maxSteps', 'budgetExceeded', 'blocked'];
      if (!retryable.includes(state)) {
        throw new StateError(
          'NOT_WAITING',
          `Run ${runId} has nothing to retry (it is ${resultOf(loaded.run, '').status}).`,
        );
      }
      beginTurn(loaded.run, 'retry');
      // A call started with no result may or may not have run: its tool's onInDoubt decides (DESIGN §21).
      markInDoubt(loaded.run);
      sendSettling(loaded.run, { type: 'RETRY', maxSteps: agent.maxSteps });
      return settle(await claimAndRun(loaded.run, loaded.version, loaded.logs, options), options);
    },
    async expire(runId, options = {}) {
      const loaded = await load(runId, options);
      if (isClaim(loaded.run) || stateOf(loaded.run) !== 'waitingInput')
        return settle(current(loaded), options);
      const at = now(loaded.run).getTime();
      const expired = pendingInteractions(loaded.run.state.context).filter(
        (interaction) => interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= at,
      );
      if (expired.length === 0) return settle(current(loaded), options);
      // Expiry is checked before anything else, so these resolve as timed out (or defaulted).
      return respond(
        runId,
        expired.map((interaction) => ({ id: interaction.id, type: 'cancel' as const })),
        options,
      );
    },
    async get(runId, options = {}) {
      const { transcript, ...turnOptions } = options;
      if (transcript !== undefined && transcript !== 'window' && transcript !== 'full') {
        throw new TurnkitError(
          'CONFIG_INVALID',
          `sessions.get: transcript is ${JSON.stringify(transcript)}; pass 'window' or 'full' (or leave it out).`,
        );
      }
      const loaded = await load(runId, turnOptions, 'assignee');
      const result = await settle(current(loaded), turnOptions);
      if (transcript === 'full') result.messages = await readTranscript(store, loaded.run);
      return result;
    },
    async getHead(runId, options = {}) {
      const head = await readHead(store, agent, runId, options);
      if (!head)
        throw new StateError(
          'RUN_NOT_FOUND',
          `No run with id ${JSON.stringify(runId)} is stored: start one with sessions.start().`,
        );
      return head;
    },
    async sweep(options = {}) {
      const { limit = 100, ...turnOptions } = options;
      // Without a `now` of the caller's, the store's clock decides what expired, listing and judging.
      const at = turnOptions.now ?? 'now';
      const swept: SessionResult<unknown>[] = [];
      const skipped: { runId: string; error: Error }[] = [];
      for (const runId of await listExpired(store, at, limit)) {
        try {
          // Reminders and escalation steps due (DESIGN §30), then whatever expired.
          await keepAsks(turns, store, onInteraction, runId, turnOptions);
          swept.push(await this.expire(runId, turnOptions));
        } catch (error) {
          skipped.push({ runId, error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      return { swept, skipped };
    },
    play: async (claim, options = {}) => settle(await playClaim(claim, options), options),
    stop: (runId, request, options = {}) => stopRun(turns, store, runId, request, options),
    inbox: (filter) => readInbox(store, filter),
    extend: async (runId, interactionId, request, options = {}) =>
      settle(await extendAsk(turns, store, runId, interactionId, request, options), options),
    async answerLink(runId, interactionId, options) {
      checkLinkOptions(options);
      // Read, and its response checked, as the link's principal will answer: an ask assigned to
      // them can have a link; four eyes and quorum hold for them as for any response.
      const loaded = await load(runId, {});
      if (options.principal !== undefined) {
        loaded.run.options = { ...loaded.run.options, principal: options.principal };
      }
      const waiting =
        stateOf(loaded.run) === 'waitingInput' &&
        pendingInteractions(loaded.run.state.context).some((interaction) => interaction.id === interactionId);
      if (!waiting) {
        throw new StateError(
          'INTERACTION_NOT_FOUND',
          `Run ${runId} has no pending interaction ${JSON.stringify(interactionId)} to make a link for: load the run to see what it waits for.`,
        );
      }
      // A link's response is checked now, so a link that could never work is never sent.
      if (options.response !== undefined) {
        prepareResolutions(loaded.run, checkResponses([{ ...options.response, id: interactionId }]));
      }
      return signLink(agent, {
        runId,
        interactionId,
        expiresAt: Date.now() + options.ttlMs,
        ...(options.principal !== undefined ? { principal: options.principal } : {}),
        ...(options.response !== undefined ? { response: options.response } : {}),
      }).token;
    },
    async answerWithLink(token, body, options = {}) {
      const claims = openLink(agent, token, (options.now ?? new Date()).getTime());
      const linkOptions =
        claims.principal !== undefined ? { ...options, principal: claims.principal } : options;
      try {
        return await answerByLink(claims, body, linkOptions);
      } catch (error) {
        // A link made for an assignee the ask was escalated away from no longer works (DESIGN §30).
        if (error instanceof StateError && error.code === 'NOT_ASSIGNEE' && claims.principal !== undefined) {
          const stored = await load(claims.runId, {});
          throw escalatedLinkError(stored.run, claims.interactionId, claims.principal) ?? error;
        }
        // A used link's principal may no longer see the run (it moved on, or ended): still 410.
        if (!(error instanceof StateError) || error.code !== 'RUN_NOT_FOUND') throw error;
        const stored = await load(claims.runId, {}).catch(() => undefined);
        if (stored?.run.usedLinks?.includes(claims.linkId)) throw usedLinkError();
        throw error;
      }
    },
    history: (runId, options) => historyOf(store, turns, runId, options),
    recording: async (runId, options = {}) =>
      storedRecording(store, (await load(runId, options, 'assignee')).run),
    // The fork's asks are its own: announced under its run id.
    fork: async (runId, request, options = {}) =>
      settle(await forkRun(agent, store, turns, runId, request, options), options),
  };
  // Every result's `output` was parsed with `agent.output`, whose type is TOutput.
  return sessions as Sessions<TOutput>;
}
