/**
 * The pub/sub behind `GET /runs/:id/events`: the turns a handler plays publish their events here,
 * keyed by run id, and open event streams listen. Every message with an `id` has a place in its
 * run's order (the event's `seq`; a `state` comes right after the event whose seq it carries), so
 * a hub can keep a run's recent messages and replay them to a stream that reconnects with
 * `Last-Event-ID`. The default hub, {@link createEventHub}, lives in one process: a turn played by
 * another instance is not seen here. `redisEventHub` and `postgresEventHub` (`@turnkit/adapters`)
 * share events across processes behind the same interface.
 */

import { TurnkitError } from '@turnkit/core';
import { checkCount } from './counts.js';

/**
 * One server-sent event: its `event` name, its `id` (the run's `seq`: an event's own, or for a
 * `state` the seq of the last event before it), and JSON `data`. A message without an `id` is live
 * only: delivered to the listeners of the moment, never kept.
 */
export interface HubMessage {
  event: string;
  id?: string;
  data: unknown;
}

/** Receives the messages of one run, in order. */
export type HubListener = (message: HubMessage) => void;

/** Removes a listener; calling it again does nothing. */
export type Unsubscribe = () => void;

/** Options of {@link EventHub.subscribe}. */
export interface SubscribeOptions {
  /**
   * Resume after the event with this `seq` (a stream's `Last-Event-ID`): the hub first delivers
   * the messages it still holds after that event (the `state` with that seq included), then live
   * ones, each once and in order. Without it, live messages only.
   */
  after?: number | undefined;
  /** Called once if the hub stops delivering to this listener because it was closed. */
  onEnd?: () => void;
}

/** A listener's subscription. */
export interface Subscription {
  unsubscribe: Unsubscribe;
  /**
   * With `after`: true when the hub still held the event `after`, so every message since was
   * delivered; false when its retention had dropped it (or never saw it). Without `after`: false.
   */
  resumed: boolean;
}

/** Where a handler's turns publish their events, and its event streams listen. */
export interface EventHub {
  /**
   * Sends a message to the run's listeners (here, and in every process sharing the hub). A message
   * whose place is not after the run's last one (a duplicate `seq`, a `state` that a later turn
   * overtook) is dropped. Never rejects: failures go to the hub's `onError`. The promise, when
   * there is one, settles once the message is stored, after every earlier message of the run.
   */
  publish(runId: string, message: HubMessage): void | Promise<void>;
  /**
   * Adds a listener for one run. A stream that ends before an async subscription resolves calls
   * `unsubscribe` as soon as it arrives. The listener may be called before this returns (replay).
   */
  subscribe(
    runId: string,
    listener: HubListener,
    options?: SubscribeOptions,
  ): Subscription | Promise<Subscription>;
  /** How many listeners the run has in this process (for tests and metrics). */
  listeners(runId: string): number;
  /** Stops delivering (each subscription's `onEnd` is called), and waits for pending publishes. */
  close(): Promise<void>;
}

const SEQ = /^(0|[1-9][0-9]{0,14})$/;

/** The seq in a message id or a `Last-Event-ID` header, or null when it is not one. */
export function parseSeq(text: string | undefined): number | null {
  return text !== undefined && SEQ.test(text) ? Number(text) : null;
}

/** The place of the event `seq` in its run's order: a resume from that event starts just after it. */
export const eventPosition = (seq: number): number => seq * 2;

/** A message's place in its run's order, or null when it has no seq id (live only). */
export function positionOf(message: HubMessage): number | null {
  const seq = parseSeq(message.id);
  if (seq === null) return null;
  return eventPosition(seq) + (message.event === 'state' ? 1 : 0);
}

/** Calls a listener; a throwing one (a broken stream) never reaches the publisher. */
export function deliver(listener: HubListener, message: HubMessage): void {
  try {
    listener(message);
  } catch {
    // A broken stream must not break the turn that publishes.
  }
}

/** Options of {@link createEventHub}. */
export interface EventHubOptions {
  /** Most messages kept per run for `Last-Event-ID` resumption (default 1000; 0 keeps none). */
  maxLength?: number | undefined;
  /** How long a run's messages are kept after its last one was published (default 60 000 ms). */
  retainMs?: number | undefined;
}

interface Entry {
  position: number;
  message: HubMessage;
}

interface RunLog {
  entries: Entry[];
  /** The last position published, kept even when its entry was dropped. */
  last: number;
  touchedAt: number;
}

/**
 * Creates an in-process {@link EventHub}. It keeps each run's last `maxLength` messages for
 * `retainMs` after the run's last one, so a stream that reconnects to this process with
 * `Last-Event-ID` misses nothing; memory is at most `maxLength` messages per run published to in
 * the last `retainMs`.
 */
export function createEventHub(options: EventHubOptions = {}): EventHub {
  checkCount(options.maxLength, 'maxLength', 'createEventHub', true);
  checkCount(options.retainMs, 'retainMs', 'createEventHub');
  const maxLength = options.maxLength ?? 1000;
  const retainMs = options.retainMs ?? 60_000;
  /** Oldest touched first: re-inserted on each publish, so expired logs are at the front. */
  const logs = new Map<string, RunLog>();
  const byRun = new Map<string, Set<{ listener: HubListener; onEnd?: () => void }>>();
  let closed = false;

  const forgetExpired = (now: number) => {
    for (const [runId, log] of logs) {
      if (now - log.touchedAt < retainMs) break;
      logs.delete(runId);
    }
  };

  /** Keeps a message with a place; false when it is not after the run's last one. */
  function keep(runId: string, position: number, message: HubMessage): boolean {
    const now = Date.now();
    forgetExpired(now);
    const log = logs.get(runId) ?? { entries: [], last: -1, touchedAt: now };
    if (position <= log.last) return false;
    log.last = position;
    log.touchedAt = now;
    log.entries.push({ position, message });
    if (log.entries.length > maxLength) log.entries.shift();
    logs.delete(runId);
    logs.set(runId, log);
    return true;
  }

  return {
    publish(runId, message) {
      if (closed) return;
      const position = positionOf(message);
      if (position !== null && !keep(runId, position, message)) return;
      for (const member of byRun.get(runId) ?? []) deliver(member.listener, message);
    },
    subscribe(runId, listener, subscribeOptions = {}) {
      if (closed) throw new TurnkitError('CONFIG_INVALID', 'createEventHub: the hub is closed.');
      const { after, onEnd } = subscribeOptions;
      let resumed = false;
      if (after !== undefined) {
        forgetExpired(Date.now());
        const from = eventPosition(after);
        for (const entry of logs.get(runId)?.entries ?? []) {
          if (entry.position === from) resumed = true;
          else if (entry.position > from) deliver(listener, entry.message);
        }
      }
      let set = byRun.get(runId);
      if (!set) {
        set = new Set();
        byRun.set(runId, set);
      }
      const member = onEnd ? { listener, onEnd } : { listener };
      set.add(member);
      const unsubscribe = () => {
        set.delete(member);
        if (set.size === 0 && byRun.get(runId) === set) byRun.delete(runId);
      };
      return { unsubscribe, resumed };
    },
    listeners: (runId) => byRun.get(runId)?.size ?? 0,
    async close() {
      closed = true;
      const members = [...byRun.values()].flatMap((set) => [...set]);
      byRun.clear();
      logs.clear();
      for (const member of members) member.onEnd?.();
    },
  };
}
