/**
 * What a run looks like over HTTP: the turn result without its per-call internals. `messages` (the
 * whole transcript) is included unless the handler is built with `messages: false`; `snapshot`
 * only in client-held mode, where the client must send it back; `version` only in store mode.
 * The `state` events of the SSE stream carry a bounded view: the transcript only while it is short,
 * so a long conversation is not sent again in full to every subscriber after every turn.
 */
import type {
  AgentEvent,
  BudgetLimits,
  ChatMessage,
  PendingInteraction,
  Spend,
  TurnResult,
  TurnStatus,
  TurnUsage,
} from '@turnkit/core';

/** The JSON body of every successful run response. */
export interface RunView {
  runId: string;
  status: TurnStatus;
  needsInput: boolean;
  /** Every pending question and approval (empty unless `needs_input`). */
  pending: PendingInteraction[];
  /**
   * When completed: the final assistant text, or for an agent with an `output` schema the parsed
   * value (a JSON object in the body); else null.
   */
  output: unknown;
  /** Why the turn failed (e.g. `MODEL_ERROR`), else null. */
  error: { code: string; message: string } | null;
  /**
   * The transcript (no system message); absent when the handler has `messages: false`, and in
   * `state` events once it is longer than {@link STATE_MESSAGES_MAX_CHARS} characters of JSON.
   */
  messages?: ChatMessage[];
  /** `state` events only: how many messages the transcript holds (read them with `GET /runs/:id`). */
  messageCount?: number;
  /** Work done by this request. */
  usage: TurnUsage;
  /** A run with a budget (DESIGN §20): what it has spent across turns, and its limits now. */
  spend?: Spend;
  budget?: BudgetLimits;
  /**
   * `seq` of the last event this request produced, or null when it produced none. A client that
   * also listens to the event stream can drop stream events with a `seq` at or below it.
   */
  lastSeq: number | null;
  /**
   * The agent that plays the run now (DESIGN §27): the root's name, or the agent a handoff moved
   * the run to. Absent for a result from an older core that does not report it.
   */
  activeAgent?: string;
  /** Store mode: the stored version of the run. */
  version?: number;
  /** Store mode, a run started by `POST /runs/:id/fork`: the run and version it was forked from. */
  forkedFrom?: { runId: string; version: number };
  /** Client-held mode: the signed snapshot to send back with the next request about this run. */
  snapshot?: string;
  /**
   * Client-held mode: send it as the `TurnKit-Events-Token` header of `GET /runs/:id/events` to
   * read the run's live events. It is the same for every response about the run.
   */
  eventsToken?: string;
}

/** Builds the view of a result. */
export function toView(
  result: TurnResult<unknown> & { version?: number; forkedFrom?: { runId: string; version: number } },
  options: { messages: boolean; snapshot: boolean; eventsToken?: string },
): RunView {
  const view: RunView = {
    runId: result.runId,
    status: result.status,
    needsInput: result.needsInput,
    pending: result.pending,
    output: result.output,
    error: result.error,
    usage: result.usage,
    lastSeq: result.events.at(-1)?.seq ?? null,
  };
  if (result.activeAgent !== undefined) view.activeAgent = result.activeAgent;
  if (options.messages) view.messages = result.messages;
  if (result.budget) {
    view.spend = result.spend;
    view.budget = result.budget;
  }
  if (result.version !== undefined) view.version = result.version;
  if (result.forkedFrom !== undefined) view.forkedFrom = result.forkedFrom;
  if (options.snapshot) view.snapshot = result.snapshot;
  if (options.eventsToken !== undefined) view.eventsToken = options.eventsToken;
  return view;
}

/** Longest transcript, in characters of JSON, that a `state` event still carries (64 Ki). */
export const STATE_MESSAGES_MAX_CHARS = 64 * 1024;

/**
 * The view sent in `state` events: no snapshot, and the transcript only while it is short (plus
 * `messageCount` always), so its size does not grow with the conversation.
 */
export function stateView(result: TurnResult<unknown> & { version?: number }, messages: boolean): RunView {
  const view = toView(result, { messages: false, snapshot: false });
  view.messageCount = result.messages.length;
  if (messages && JSON.stringify(result.messages).length <= STATE_MESSAGES_MAX_CHARS) {
    view.messages = result.messages;
  }
  return view;
}

/**
 * Whether the interaction this request responded to had expired: core then does not use the
 * response but resolves the interaction as timed out (or with its default) and goes on. Those
 * resolutions come first in the call's events, before any model or tool work.
 */
export function expiredResolution(events: readonly AgentEvent[]): string | null {
  for (const event of events) {
    if (event.type === 'interaction_resolved') {
      if (event.resolution === 'timed_out' || event.resolution === 'defaulted') return event.interactionId;
      continue;
    }
    if (event.type !== 'turn_started') return null;
  }
  return null;
}
