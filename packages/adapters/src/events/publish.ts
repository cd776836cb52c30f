/**
 * What a handler publishes to its event hub: every event of the turns it plays (its `id` the
 * event's `seq`), and after each turn the run's `state`, whose `id` is the seq of the turn's last
 * event, so it sorts right after it and a stream resuming from that event gets it again.
 *
 * A request that loses the race to claim a run has already emitted its `turn_started` (and the
 * resolutions it applied) under the very seqs the winner is about to use. The routes' events are
 * therefore held per run until the turn emits anything else, which it does only once its claim is
 * written (every turn it plays ends with a `turn_*` event); a loser's held events are dropped with
 * its request.
 */
import { type AgentEvent, type RunHead, readSnapshotHeader, type TurnResult } from '@turnkit/core';
import type { EventHub, HubMessage } from './hub.js';
import { type RunView, stateView } from './view.js';

/** The events a turn emits before its claim is written. */
const BEFORE_CLAIM: ReadonlySet<AgentEvent['type']> = new Set(['turn_started', 'interaction_resolved']);

/**
 * An event as subscribers get it: the messages a turn adds — a turn's `input` (what a client just
 * sent) and a queued message's `messages` as it is delivered (DESIGN §30), both kept in the event
 * for recordings (DESIGN §28) — are left out, so a long message is not queued again for every
 * subscriber, and a handler built with `messages: false` sends no transcript text on its streams.
 * `GET /runs/:id` has them (when the handler shows messages).
 */
function published(event: AgentEvent): AgentEvent {
  if (event.type === 'turn_started' && event.input !== undefined) {
    const { input: _, ...rest } = event;
    return rest;
  }
  if (event.type === 'message_delivered' && event.messages !== undefined) {
    const { messages: _, ...rest } = event;
    return rest;
  }
  return event;
}

/** The run's seq after a result: its last event's, else the one its snapshot records. */
function runSeq(result: TurnResult<unknown>): number {
  return result.events.at(-1)?.seq ?? readSnapshotHeader(result.snapshot).seq;
}

/** A run's `state` message: the bounded view of `stateView`, with the run's seq as its id. */
export function stateMessage(
  result: TurnResult<unknown> & { version?: number },
  messages: boolean,
): HubMessage {
  return { event: 'state', id: String(runSeq(result)), data: stateView(result, messages) };
}

/**
 * The `state` message of a run read from its head alone (no transcript): the same view as
 * {@link stateMessage} gives for a transcript too long to carry.
 */
export function headStateMessage(head: RunHead<unknown>): HubMessage {
  const data: RunView = {
    runId: head.runId,
    status: head.status,
    needsInput: head.needsInput,
    pending: head.pending,
    output: head.output,
    error: head.error,
    usage: { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 },
    lastSeq: null,
    version: head.version,
    messageCount: head.messageCount,
  };
  return { event: 'state', id: String(head.seq), data };
}

/** One request's `onEvent` (see {@link Publisher.forRequest}). */
export type RequestOnEvent = ((event: AgentEvent) => void) & {
  /**
   * Publishes the held events now: their claim was written and the turn left for a worker
   * (`Prefer: respond-async`), so no further event of this request will release them.
   */
  release(): void;
};

/** Publishes a handler's events and states to its hub. */
export interface Publisher {
  /** Publishes each event as it comes (the protocol mounts, which share one `onEvent`). */
  onEvent(event: AgentEvent): void;
  /** A fresh `onEvent` for one request, holding the events a turn emits before its claim. */
  forRequest(): RequestOnEvent;
  /**
   * Publishes the state after a turn, and resolves once the hub stored it (after the turn's
   * events). A result without events (a repeated answer, a read) changed nothing: not published.
   */
  publishState(result: TurnResult<unknown> & { version?: number }): Promise<void>;
}

/** What {@link hubPublisher} needs from the handler. */
export interface PublisherOptions {
  /** The handler's own `onEvent`: it sees every event at once, held or not. */
  userOnEvent: ((event: AgentEvent) => void) | undefined;
  /** Whether `state` messages may carry the transcript (the handler's `messages`). */
  messages: boolean;
  /** Where a hub that breaks its promise never to throw reports (the handler's `onError`). */
  onError(error: unknown): void;
}

/** The handler's {@link Publisher}. */
export function hubPublisher(hub: EventHub, options: PublisherOptions): Publisher {
  const { userOnEvent, messages, onError } = options;
  const send = async (runId: string, message: HubMessage) => {
    try {
      await hub.publish(runId, message);
    } catch (error) {
      onError(error);
    }
  };
  const publish = (event: AgentEvent) =>
    void send(event.runId, { event: event.type, id: String(event.seq), data: published(event) });
  return {
    onEvent(event) {
      publish(event);
      userOnEvent?.(event);
    },
    forRequest() {
      const held = new Map<string, AgentEvent[]>();
      const flush = (runId: string) => {
        const waiting = held.get(runId);
        if (!waiting) return;
        held.delete(runId);
        for (const before of waiting) publish(before);
      };
      const onEvent = (event: AgentEvent) => {
        userOnEvent?.(event);
        if (BEFORE_CLAIM.has(event.type)) {
          const waiting = held.get(event.runId);
          if (waiting) waiting.push(event);
          else held.set(event.runId, [event]);
          return;
        }
        flush(event.runId);
        publish(event);
      };
      return Object.assign(onEvent, {
        release: () => {
          for (const runId of [...held.keys()]) flush(runId);
        },
      });
    },
    async publishState(result) {
      if (result.events.length > 0) await send(result.runId, stateMessage(result, messages));
    },
  };
}
