/**
 * What sessions offer (DESIGN §7, §12, §14): the calls of {@link Sessions}, what they take and
 * what they return. `sessions.ts` implements them.
 */
import type { ApproveDecision, ResponseInput } from '../interpreter/index.js';
import type { Recording } from '../testing/index.js';
import type { Agent, OnInteraction } from '../tools/index.js';
import type { ChatMessage, PendingInteraction, TurnOptions, TurnResult, TurnStatus } from '../types.js';
import type { InboxFilter, InboxPage } from './inbox.js';
import type { AnswerLinkOptions } from './links.js';
import type { SnapshotStore } from './store.js';

/** A turn result plus the version under which the store now holds the run. */
export type SessionResult<TOutput = string> = TurnResult<TOutput> & {
  version: number;
  /**
   * With `defer: true`, when the call claimed a turn and left it for a worker: the claim to hand to
   * {@link Sessions.play} (through a queue). Absent when nothing was claimed (a repeated answer).
   */
  claim?: TurnClaim;
  /** For a run started by {@link Sessions.fork}: the run and stored version it was forked from. */
  forkedFrom?: { runId: string; version: number };
  /** From `send` with `mode: 'queue'` (DESIGN §30): the id the message was queued under. */
  queued?: { messageId: string };
};

/**
 * Why a version of a run was written (DESIGN §21): `start` (the first claim), `paused` (waiting
 * for an answer), `answered` (the claim that applied an answer), `resumed` (a claim after a rest:
 * a message, a retry, a takeover), `step` (a step's results recorded mid-turn), or the run at rest:
 * `completed`, `failed`, `aborted`, `max_steps`.
 */
export type PointReason =
  | 'start'
  | 'paused'
  | 'answered'
  | 'resumed'
  | 'step'
  | 'completed'
  | 'failed'
  | 'aborted'
  | 'max_steps';

/** One kept point of a run, from {@link Sessions.history}. */
export interface HistoryPoint {
  /** The stored version: pass it to {@link Sessions.fork} as `at`. */
  version: number;
  /** When the store wrote it (ISO 8601, the store's clock). */
  at: string;
  reason: PointReason;
  /** At a pause: the (first) interaction then waiting for an answer. */
  interactionId?: string;
}

/**
 * Where {@link Sessions.fork} starts: a kept version, or `{ interactionId }` — the last point where
 * that interaction waited for its answer, so it can be answered differently.
 */
export type ForkAt = number | { interactionId: string };

/** What {@link Sessions.fork} takes. */
export interface ForkRequest {
  at: ForkAt;
  /** The new run's id (default: a fresh one). */
  runId?: string;
}

/** A turn claimed and not yet played (background turns, DESIGN §17). */
export interface TurnClaim {
  runId: string;
  /** The lease owner the claim was written with: the worker that plays it takes that lease over. */
  owner: string;
  /** The store version the claim was written as. */
  version: number;
}

/** Options of the sessions calls that play a turn. */
/** Options of {@link Sessions.get}. */
export interface GetOptions extends TurnOptions {
  /**
   * Which messages the result holds (DESIGN §22). `'window'` (default): the run's messages, as the
   * model sees them — for a compacted run, its summary and the recent messages. `'full'`: every
   * message the store's transcript log kept, oldest first, without summaries (a compaction's summary
   * and the system messages it kept in the window are not log entries). The log is read after the
   * run, so a turn finishing in between may have added to it. With a store without row layout 2
   * (no `getParts`/`putParts`) or an agent that encrypts, the store keeps only the window: `'full'`
   * returns the window's messages after its summary. Only the window is covered by the signature
   * of a signed run; earlier entries are returned as stored.
   */
  transcript?: 'window' | 'full';
}

export interface SessionOptions extends TurnOptions {
  /**
   * Claim the turn and return at once, playing nothing (background turns, DESIGN §17): the request
   * is applied to the machine and written as a claim with a lease, the result says `running` and
   * carries the `claim`, and a worker plays it with {@link Sessions.play}, taking the lease over.
   * Until then the run is held as any claimed run: the same request again gets that state, another
   * gets `CONFLICT`; if no worker takes it within the lease, the next request plays it itself.
   */
  defer?: boolean;
}

/** Options of {@link Sessions.play}. */
export interface PlayOptions extends TurnOptions {
  /**
   * Hands the turn back when aborted (a worker shutting down): no further model or tool call starts,
   * in-flight tools see `ctx.signal` abort, nothing is written and the lease is released, so the
   * queue's next delivery (on any worker) takes the turn over; `play` then rejects with a
   * `ConflictError`. Calls that had finished run again there, with the same `ctx.idempotencyKey`.
   */
  handBack?: AbortSignal;
}

/** What {@link Sessions.start} takes. */
export type SessionStart =
  | string
  | ChatMessage[]
  | { input: string | ChatMessage[]; context?: unknown; runId?: string };

/** Runs kept in a store; see {@link createSessions}. `TOutput` is the agent's output type. */
export interface Sessions<TOutput = string> {
  /** Starts a run and plays its first turn. */
  start(input: SessionStart, options?: SessionOptions): Promise<SessionResult<TOutput>>;
  answer(
    runId: string,
    answer: Omit<Extract<ResponseInput, { type: 'answer' }>, 'type'>,
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  /**
   * Approves a pending call (with an approval `quorum`, counts this principal's approval); on a
   * `budget` interaction, `extend` raises the run's limits before it goes on; on a hook's `review`,
   * `edit` goes on with an edited subject (DESIGN §26). `remember: 'run'` lets later calls of the
   * same tool with an input judged the same pass without asking.
   */
  approve(
    runId: string,
    decision?: ApproveDecision,
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  reject(
    runId: string,
    decision?: { id?: string; rationale?: string },
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  cancel(
    runId: string,
    cancel?: { id?: string; reason?: string },
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  /** Fills in a pending input form (a tool's `ctx.ask({ input })`); the tool's `resume` runs. */
  provideInput(
    runId: string,
    input: { id?: string; value: unknown },
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  /** The generic form: several responses at once. */
  respond(
    runId: string,
    responses: ResponseInput[],
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  /**
   * Sends the next user message. By default (`mode: 'supersede'`) it supersedes whatever is
   * pending and plays a turn now. With `mode: 'queue'` (DESIGN §30) it waits its turn: while a turn
   * plays it is stored on the run and added before that worker's next model call, once (even across
   * takeovers); while asks wait it stays queued until they are answered; on a run at rest otherwise
   * it plays a turn now. Returns the run's state with `queued: { messageId }`; the worker that takes
   * the message emits `message_queued`, then `message_delivered` as it adds it.
   */
  send(runId: string, input: string | ChatMessage[], options?: SendOptions): Promise<SessionResult<TOutput>>;
  /** Retries a failed, aborted or max_steps run, or finishes the turn of a worker that died. */
  retry(runId: string, options?: SessionOptions): Promise<SessionResult<TOutput>>;
  /** Resolves whatever has expired (for a sweeper over `store.listExpired`); nothing expired: the run as it is. */
  expire(runId: string, options?: SessionOptions): Promise<SessionResult<TOutput>>;
  /**
   * The run's current state: status `running` while a worker holds it. With `transcript: 'full'`,
   * `messages` are the whole transcript the store keeps (DESIGN §22), not the window of a run whose
   * history was compacted.
   */
  get(runId: string, options?: GetOptions): Promise<SessionResult<TOutput>>;
  /**
   * The run's state without its transcript (DESIGN §17): with a store that reads a row's head alone
   * (`getHead`), no log is read, however long the history; otherwise the whole run is read.
   * `messagesLength` says how long the transcript is, so a caller can read it (`get`) when short.
   * Unknown run (or another principal's): `RUN_NOT_FOUND`.
   */
  getHead(runId: string, options?: TurnOptions): Promise<RunHead<TOutput>>;
  /**
   * Timeouts that fire (DESIGN §14): resolves every expired interaction of the runs the store lists
   * (`listExpired`), as `expire` does, and lets each run go on. Call it from a cron job or a timer.
   * It also sends the reminders and applies the escalation steps that are due (DESIGN §30), calling
   * `onInteraction(pending, run, { reason: 'reminder' | 'escalated' })` once each, across sweepers.
   * A run another worker holds, or one that fails, is reported in `skipped` and left for next time.
   */
  sweep(options?: SweepOptions): Promise<SweepResult<TOutput>>;
  /**
   * Plays a turn claimed with `defer: true` (a background worker's call, DESIGN §17): takes the
   * claim with a lease of its own (a compare-and-set, so of two deliveries of one job only one
   * plays) and plays it, renewing the lease. A run already at rest (played by an earlier delivery,
   * or by a request) is returned as it is; a run another worker holds right now is a
   * `ConflictError` (deliver again later). A turn a worker began and stopped holding (it died, or
   * handed it back) is taken over as `retry` would: interrupted calls run again with the same
   * `ctx.idempotencyKey`.
   */
  play(claim: TurnClaim, options?: PlayOptions): Promise<SessionResult<TOutput>>;
  /**
   * Stops the run wherever it plays (DESIGN §20). A turn a worker is playing, on any process, is
   * marked in the store: that worker ends it `aborted` before its next model or tool call (a tool
   * already running finishes and its result is kept), and this returns at once with `stop:
   * 'requested'` and status `running`. A paused run has its pending interactions cancelled (with
   * `reason`) and rests `aborted` (`stop: 'stopped'`), as does a turn whose worker died. A run at
   * rest otherwise (completed, failed, aborted, max steps) is left as it is (`stop: 'not_running'`).
   * `send` or `retry` continues an aborted run. A closed event stream never stops a run.
   */
  stop(runId: string, request?: StopRequest, options?: TurnOptions): Promise<StopResult<TOutput>>;
  /**
   * More time (DESIGN §30): moves the expiry of pending interaction `interactionId` `ms` later (its
   * reminder, if it has one, is due again before the new expiry). An assignee of the ask or the run's
   * principal may extend it; anyone else gets `NOT_ASSIGNEE` (or `RUN_NOT_FOUND` where the run is
   * hidden from them). An ask that never expires is `WRONG_KIND`; one already expired, `NOT_WAITING`.
   */
  extend(
    runId: string,
    interactionId: string,
    request: ExtendRequest,
    options?: TurnOptions,
  ): Promise<SessionResult<TOutput>>;
  /**
   * The inbox (DESIGN §20): pending interactions across runs, oldest first, one page at a time
   * (`cursor` null on the last page), read from the store's index (`listPending`) without loading
   * any run. A store without that index is refused with `CONFIG_INVALID`.
   */
  inbox(filter?: InboxFilter): Promise<InboxPage>;
  /**
   * A single-use link that answers one pending interaction (DESIGN §20), for an e-mail or a chat
   * message: a token signed with the agent's snapshot secret (`CONFIG_INVALID` without one), valid
   * for `ttlMs`. With `response` it gives that response (a one-click "approve"); without, the use
   * supplies one. Used with {@link Sessions.answerWithLink} (or `POST /interactions/:token`).
   */
  answerLink(runId: string, interactionId: string, options: AnswerLinkOptions): Promise<string>;
  /**
   * Answers with a link, once: with the link's response, else with `response` (shaped as on
   * `respond`, without `id`; `type` may be left out for a question or a form). The link's principal
   * answers. A link used already or expired is a `LinkError` (`LINK_INVALID`, `forged: false`); one
   * not signed with this agent's secret, or altered, is a `LinkError` with `forged: true`. Of two
   * uses racing, across processes, one answers and the other gets `LINK_INVALID`.
   */
  answerWithLink(
    token: string,
    response?: unknown,
    options?: SessionOptions,
  ): Promise<SessionResult<TOutput>>;
  /**
   * The run's kept points, oldest first (DESIGN §21): each version the store kept, when, why it was
   * written, and at a pause the interaction waiting. Needs a store that keeps points (all four do;
   * `keepHistory` says how many), else `CONFIG_INVALID`.
   */
  history(runId: string, options?: TurnOptions): Promise<HistoryPoint[]>;
  /**
   * Starts a new run from a kept point of `runId` and returns it as `start` does (DESIGN §21): a new
   * `runId`, `forkedFrom: { runId, version }` recorded (on this result and on `get`), new idempotency
   * keys, the source's principal (`options.principal` must be allowed on the source). `at: { interactionId }`
   * is the state just before that interaction was answered: answer it again, differently. A point
   * mid-turn is played on at once. The source run is unchanged. Tools that ran after the point are
   * not undone: a fork replays nothing, but its own turns may call them again, under new keys.
   * An unknown version or interaction throws `POINT_NOT_FOUND`.
   */
  fork(runId: string, request: ForkRequest, options?: SessionOptions): Promise<SessionResult<TOutput>>;
  /**
   * The run as a {@link Recording} (DESIGN §28): its whole transcript and every response with who
   * gave it, to replay through today's agent (`replay` in `@turnkit/core/testing`). Unknown run (or
   * another principal's): `RUN_NOT_FOUND`.
   */
  recording(runId: string, options?: TurnOptions): Promise<Recording>;
}

/** What {@link Sessions.extend} takes: how much later the ask expires, in ms (> 0). */
export interface ExtendRequest {
  ms: number;
}

/** What {@link Sessions.send} takes besides the turn options (DESIGN §30). */
export interface SendOptions extends SessionOptions {
  /**
   * `'supersede'` (the default, DESIGN §14): the message answers whatever is pending with
   * `superseded_by_user_message` and a turn plays it now. `'queue'`: it waits its turn — added
   * before the next model call of the turn playing, or kept until the run's asks are answered.
   */
  mode?: 'supersede' | 'queue' | undefined;
  /** `mode: 'queue'`: the message's idempotency key (default: a new one). Queuing an id again adds nothing. */
  messageId?: string | undefined;
}

/** What {@link Sessions.stop} takes. */
export interface StopRequest {
  /** Why, for the audit: the rationale of each cancelled interaction, and the stop mark. */
  reason?: string;
}

/**
 * What {@link Sessions.stop} did: `requested` (a worker holds the turn and ends it `aborted` before
 * its next call), `stopped` (the run now rests `aborted`), `not_running` (at rest already; nothing changed).
 */
export type StopOutcome = 'requested' | 'stopped' | 'not_running';

/** The run's state after {@link Sessions.stop}, and what the stop did. */
export type StopResult<TOutput = string> = SessionResult<TOutput> & { stop: StopOutcome };

/** A run's state without its transcript: see {@link Sessions.getHead}. */
export interface RunHead<TOutput = string> {
  runId: string;
  /** As in a turn result; `running` while a worker holds a claim on the run. */
  status: TurnStatus;
  needsInput: boolean;
  pending: PendingInteraction[];
  /** When completed, the final output; else null. */
  output: TOutput | null;
  error: { code: string; message: string } | null;
  /** The stored version. */
  version: number;
  /** The run's last event sequence number. */
  seq: number;
  /** How many messages the transcript holds. */
  messageCount: number;
  /** The length of the transcript's JSON text (an upper bound: UTF-8 bytes for some stores). */
  messagesLength: number;
}

/** Options of {@link Sessions.sweep}: the turn options, the clock, and how many runs at most. */
export interface SweepOptions extends TurnOptions {
  /** Expired at or before this time (default: now). */
  now?: Date;
  /** At most this many runs per sweep (default 100; undefined is the default too). */
  limit?: number | undefined;
}

/** What a sweep did. */
export interface SweepResult<TOutput = string> {
  /** The runs whose expired interactions were resolved, as they are now. */
  swept: SessionResult<TOutput>[];
  /** Runs listed but left alone: busy, gone, or failing; with why. */
  skipped: { runId: string; error: Error }[];
}

/** Options of {@link createSessions}. */
export interface SessionsConfig<TOutput = string> {
  agent: Agent<TOutput>;
  store: SnapshotStore;
  /**
   * How long a worker's claim lasts without renewal (default 60 000 ms). A worker playing a turn
   * renews it every `leaseMs / 3`, so a slow turn keeps its run; only a worker that stopped renewing
   * (it died, or hung) can be taken over, and then its interrupted calls run again with the same
   * `ctx.idempotencyKey`.
   */
  leaseMs?: number | undefined;
  /**
   * Called once per new pending interaction, after the pause is stored (DESIGN §20): send the
   * e-mail, post the chat message. At least once: if the process dies between the write and the
   * call, the next call on that run (`get`, a response, `sweep`…) makes it; dedupe on the
   * interaction id. A throw is passed to the call's `onError`, and the call is made again later.
   * Wins over the agent's own `onInteraction` (`defineAgent`), which is used when this is absent.
   */
  onInteraction?: OnInteraction;
}
