/**
 * Small fixtures of the event hub tests: messages numbered like a run's events, and a listener
 * that collects what it gets and lets a test wait for a number of messages (no timers: the test's
 * own timeout is the limit).
 */
import { randomBytes } from 'node:crypto';
import type { HubListener, HubMessage } from '../../src/events/hub.js';

/** A run id no other test uses. */
export const hubRunId = (label: string): string => `run_${label}_${randomBytes(6).toString('hex')}`;

/** The event with this seq, as the handler publishes it. */
export const event = (runId: string, seq: number, type = 'model_delta'): HubMessage => ({
  event: type,
  id: String(seq),
  data: { type, runId, seq, text: `t${seq}` },
});

/** The run's state after the event with this seq. */
export const state = (runId: string, seq: number): HubMessage => ({
  event: 'state',
  id: String(seq),
  data: { runId, status: 'needs_input', lastSeq: seq },
});

/** What a listener got, and a way to wait for more. */
export interface Collector {
  listener: HubListener;
  messages: HubMessage[];
  /** `event@id` for each message, the shortest way to compare orders. */
  seen(): string[];
  /** Resolves once `count` messages in all have arrived. */
  until(count: number): Promise<HubMessage[]>;
}

export function collector(): Collector {
  const messages: HubMessage[] = [];
  const waits: { count: number; resolve: () => void }[] = [];
  const settle = () => {
    for (const wait of [...waits]) {
      if (messages.length >= wait.count) {
        waits.splice(waits.indexOf(wait), 1);
        wait.resolve();
      }
    }
  };
  return {
    listener: (message) => {
      messages.push(message);
      settle();
    },
    messages,
    seen: () => messages.map((message) => `${message.event}@${message.id}`),
    until: (count) =>
      new Promise((resolve) => {
        waits.push({ count, resolve: () => resolve(messages) });
        settle();
      }),
  };
}

/** `model_delta@1` … for a range of seqs, and `state@n` where given. */
export function names(seqs: number[], states: number[] = []): string[] {
  const out: string[] = [];
  for (const seq of seqs) {
    out.push(`model_delta@${seq}`);
    if (states.includes(seq)) out.push(`state@${seq}`);
  }
  return out;
}

/** The integers from `first` to `last`. */
export const seqs = (first: number, last: number): number[] =>
  Array.from({ length: last - first + 1 }, (_, index) => first + index);
