/**
 * What the hubs shared across processes (Redis, PostgreSQL) have in common, around their storage:
 *
 * - **Listeners** of this process, per run. A new listener first catches up on what the storage
 *   holds after its `after` (read page by page), while live messages that arrive meanwhile wait
 *   for it; then it is live. The storage is followed (one reader per hub, not per listener) from
 *   the lowest place its catching-up listeners reached. Each listener remembers the place of the
 *   last message it got and drops anything at or before it, so overlapping catch-up and live
 *   reads deliver each message once, in order.
 * - **Publishing** per run in order: while one write of a run is in flight, the next messages of
 *   that run wait and go together in the following write, so `seq` order is storage order.
 */
import { TurnkitError } from '@turnkit/core';
import { isSafeRunId } from '../../stores/index.js';
import {
  deliver,
  eventPosition,
  type HubListener,
  type HubMessage,
  positionOf,
  type SubscribeOptions,
  type Subscription,
} from '../hub.js';

/** A stored message and its place in the run. */
export interface Entry {
  position: number;
  message: HubMessage;
}

/** How many messages one catch-up read returns at most. */
export const PAGE_SIZE = 500;

/** A hub's storage, as the shared part uses it. */
export interface Storage {
  /** The run's stored messages at or after `from`, in order, at most {@link PAGE_SIZE}. */
  range(runId: string, from: number): Promise<Entry[]>;
  /** The place of the run's last stored message, or -1. */
  top(runId: string): Promise<number>;
  /** Starts reading the run's new messages after `position` (its first listener here). */
  follow(runId: string, position: number): void;
  /** Stops reading the run (its last listener here left). */
  unfollow(runId: string): void;
  /** Writes messages of one run, in order, dropping those not after its last stored one. */
  write(runId: string, entries: Entry[]): Promise<void>;
}

interface Member {
  listener: HubListener;
  onEnd: (() => void) | undefined;
  /** The place of the last message delivered (or skipped as already seen). */
  position: number;
  /** Live messages that arrived while catching up; null once live. */
  waiting: Entry[] | null;
  active: boolean;
}

/** Throws `CONFIG_INVALID` unless the run id can be a key or a row of these hubs. */
export function checkRunId(runId: string, where: string): void {
  if (!isSafeRunId(runId)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: run id ${JSON.stringify(String(runId).slice(0, 80))} is not 1-200 characters from A-Z a-z 0-9 _ - .`,
    );
  }
}

/** Milliseconds to wait before retry number `failures` (1, 2…) of a lost connection: 100 ms doubling, at most 5 s. */
export const retryDelay = (failures: number): number => Math.min(5_000, 100 * 2 ** Math.min(failures, 6));

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The shared part of a hub, on a {@link Storage}. */
export interface SharedHub {
  publish(runId: string, message: HubMessage): Promise<void>;
  subscribe(runId: string, listener: HubListener, options?: SubscribeOptions): Promise<Subscription>;
  listeners(runId: string): number;
  /** Hands new messages of a followed run to its listeners. */
  deliverNew(runId: string, entries: Entry[]): void;
  /** The runs followed now. */
  followed(): string[];
  /** Ends every subscription and waits for the writes in flight. */
  close(): Promise<void>;
}

/** Builds the shared part of a hub named `where` on `storage`; its failures go to `onError`. */
export function sharedHub(where: string, storage: Storage, onError: (error: unknown) => void): SharedHub {
  const members = new Map<string, Set<Member>>();
  const following = new Set<string>();
  /** Per run: the messages waiting for the write in flight, and that write. */
  const queues = new Map<string, { entries: Entry[]; last: number; flushing: Promise<void> | undefined }>();
  let closed = false;

  const hand = (member: Member, entry: Entry) => {
    if (!member.active || entry.position <= member.position) return;
    member.position = entry.position;
    deliver(member.listener, entry.message);
  };

  async function flush(runId: string): Promise<void> {
    const queue = queues.get(runId)!;
    while (queue.entries.length > 0) {
      const entries = queue.entries;
      queue.entries = [];
      try {
        await storage.write(runId, entries);
      } catch (error) {
        onError(error);
      }
    }
    queues.delete(runId);
  }

  /** Follows the run from the lowest place its catching-up listeners reached, unless it is followed. */
  function followFrom(runId: string): void {
    const set = members.get(runId);
    if (!set || following.has(runId)) return;
    following.add(runId);
    storage.follow(runId, Math.min(...[...set].map((member) => member.position)));
  }

  function leave(runId: string, member: Member): void {
    member.active = false;
    const set = members.get(runId);
    if (!set?.delete(member) || set.size > 0) return;
    members.delete(runId);
    if (following.delete(runId)) storage.unfollow(runId);
  }

  async function catchUp(runId: string, member: Member, after: number | undefined): Promise<boolean> {
    if (after === undefined) {
      member.position = await storage.top(runId);
      return false;
    }
    const from = eventPosition(after);
    member.position = from;
    let resumed = false;
    for (let start = from; member.active; ) {
      const page = await storage.range(runId, start);
      if (start === from) resumed = page[0]?.position === from;
      for (const entry of page) hand(member, entry);
      if (page.length < PAGE_SIZE) break;
      start = page[page.length - 1]!.position + 1;
    }
    return resumed;
  }

  return {
    publish(runId, message) {
      const position = positionOf(message);
      if (closed) return Promise.resolve();
      try {
        checkRunId(runId, where);
        if (position === null) {
          throw new TurnkitError(
            'CONFIG_INVALID',
            `${where}: a message needs an \`id\` that is its seq (digits) to be shared, got ${JSON.stringify(message.id)}.`,
          );
        }
      } catch (error) {
        onError(error);
        return Promise.resolve();
      }
      let queue = queues.get(runId);
      if (!queue) {
        queue = { entries: [], last: -1, flushing: undefined };
        queues.set(runId, queue);
      }
      // Within this process a run's messages come in order: one not after the last is a duplicate.
      if (position > queue.last) {
        queue.last = position;
        queue.entries.push({ position, message });
      }
      queue.flushing ??= flush(runId);
      return queue.flushing;
    },
    async subscribe(runId, listener, options = {}) {
      checkRunId(runId, where);
      if (closed) throw new TurnkitError('CONFIG_INVALID', `${where}: the hub is closed.`);
      const member: Member = { listener, onEnd: options.onEnd, position: -1, waiting: [], active: true };
      let set = members.get(runId);
      if (!set) {
        set = new Set();
        members.set(runId, set);
      }
      set.add(member);
      let resumed: boolean;
      try {
        resumed = await catchUp(runId, member, options.after);
      } catch (error) {
        leave(runId, member);
        onError(error);
        throw error;
      }
      if (member.active) {
        followFrom(runId);
        const waiting = member.waiting ?? [];
        member.waiting = null;
        for (const entry of waiting) hand(member, entry);
      }
      return { unsubscribe: () => leave(runId, member), resumed };
    },
    listeners: (runId) => members.get(runId)?.size ?? 0,
    deliverNew(runId, entries) {
      for (const member of members.get(runId) ?? []) {
        if (member.waiting) member.waiting.push(...entries);
        else for (const entry of entries) hand(member, entry);
      }
    },
    followed: () => [...following],
    async close() {
      closed = true;
      const ended = [...members.values()].flatMap((set) => [...set]);
      for (const runId of [...members.keys()]) {
        for (const member of members.get(runId) ?? []) leave(runId, member);
      }
      for (const member of ended) member.onEnd?.();
      await Promise.all([...queues.values()].map((queue) => queue.flushing));
    },
  };
}
