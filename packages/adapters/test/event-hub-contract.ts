/**
 * The behaviour every event hub shared across processes must have (DESIGN §17), as one suite run
 * against each: two hub instances on two connections stand for two processes; what one publishes
 * the other delivers, in seq order, once, resumable after a seq, never across runs. To check a
 * new hub: `describeSharedHubContract('myHub', async () => ({ open, teardown }))`.
 */
import { TurnkitError } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../src/events/hub.js';
import { collector, event, hubRunId, names, seqs, state } from './helpers/hub-fixtures.js';

/** Opens hub instances on one backend, each on its own connection(s). */
export interface SharedHubFixture {
  /** A new hub instance; its failures go to `errors`. */
  open(errors: unknown[]): Promise<EventHub>;
  teardown(): Promise<void>;
}

export function describeSharedHubContract(name: string, setup: () => Promise<SharedHubFixture>): void {
  describe(`${name} (shared event hub contract)`, () => {
    let fixture: SharedHubFixture;
    let writer: EventHub;
    let reader: EventHub;
    const errors: unknown[] = [];
    beforeAll(async () => {
      fixture = await setup();
      writer = await fixture.open(errors);
      reader = await fixture.open(errors);
    });
    afterAll(async () => {
      await writer?.close();
      await reader?.close();
      await fixture?.teardown();
      expect(errors).toEqual([]);
    });

    it('delivers what another process publishes, in seq order, each message once', async () => {
      const runId = hubRunId('order');
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener);
      expect(subscription.resumed).toBe(false);
      expect(reader.listeners(runId)).toBe(1);
      const published = seqs(1, 60).map((seq) => writer.publish(runId, event(runId, seq)));
      await Promise.all([...published, writer.publish(runId, state(runId, 60))]);
      await got.until(61);
      expect(got.seen()).toEqual(names(seqs(1, 60), [60]));
      expect(got.messages[0]!.data).toEqual(event(runId, 1).data);
      subscription.unsubscribe();
      expect(reader.listeners(runId)).toBe(0);
    });

    it('resumes after a seq: the messages held since (the state at that seq included), then live ones', async () => {
      const runId = hubRunId('resume');
      for (const seq of seqs(1, 10)) void writer.publish(runId, event(runId, seq));
      await writer.publish(runId, state(runId, 4));
      // State 4 came after event 10: a later turn overtook it, so it is dropped.
      await writer.publish(runId, state(runId, 10));
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener, { after: 4 });
      expect(subscription.resumed).toBe(true);
      await writer.publish(runId, event(runId, 11));
      await got.until(8);
      expect(got.seen()).toEqual(names(seqs(5, 11), [10]));
      subscription.unsubscribe();
    });

    it('says it could not resume when it never held the event, and goes on live', async () => {
      const runId = hubRunId('unknown');
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener, { after: 40 });
      expect(subscription.resumed).toBe(false);
      await writer.publish(runId, event(runId, 41));
      expect(await got.until(1)).toEqual([event(runId, 41)]);
      subscription.unsubscribe();
    });

    it('drops a message whose seq was already published, keeping the first', async () => {
      const runId = hubRunId('duplicates');
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener);
      await writer.publish(runId, event(runId, 1));
      await writer.publish(runId, event(runId, 2, 'turn_started'));
      // Another process publishing the same seqs (a worker redoing a turn): dropped.
      await reader.publish(runId, event(runId, 2, 'interaction_resolved'));
      await reader.publish(runId, event(runId, 1));
      await writer.publish(runId, event(runId, 3));
      await got.until(3);
      expect(got.seen()).toEqual(['model_delta@1', 'turn_started@2', 'model_delta@3']);
      subscription.unsubscribe();
    });

    it('never delivers the messages of another run', async () => {
      const runId = hubRunId('mine');
      const other = hubRunId('other');
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener, { after: 0 });
      for (const seq of seqs(1, 20)) {
        void writer.publish(other, event(other, seq));
        void writer.publish(runId, event(runId, seq));
      }
      await writer.publish(other, state(other, 20));
      await writer.publish(runId, state(runId, 20));
      await got.until(21);
      expect(got.messages.every((message) => (message.data as { runId: string }).runId === runId)).toBe(true);
      expect(got.seen()).toEqual(names(seqs(1, 20), [20]));
      subscription.unsubscribe();
    });

    it('keeps listeners of one run in one process apart: each gets every message once', async () => {
      const runId = hubRunId('two');
      await writer.publish(runId, event(runId, 1));
      const first = collector();
      const second = collector();
      const a = await reader.subscribe(runId, first.listener, { after: 0 });
      void writer.publish(runId, event(runId, 2));
      const b = await reader.subscribe(runId, second.listener, { after: 1 });
      await writer.publish(runId, event(runId, 3));
      await first.until(3);
      await second.until(2);
      expect(first.seen()).toEqual(names([1, 2, 3]));
      expect(second.seen()).toEqual(names([2, 3]));
      a.unsubscribe();
      a.unsubscribe();
      expect(reader.listeners(runId)).toBe(1);
      b.unsubscribe();
      expect(reader.listeners(runId)).toBe(0);
    });

    it('refuses run ids that are not safe keys, and reports messages without a seq id', async () => {
      await expect(reader.subscribe('../etc', () => {})).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      const seen: unknown[] = [];
      const hub = await fixture.open(seen);
      await hub.publish(hubRunId('no-id'), { event: 'ready', data: {} });
      await hub.close();
      expect(seen).toHaveLength(1);
      expect(TurnkitError.isInstance(seen[0]) && seen[0].code).toBe('CONFIG_INVALID');
    });

    it('on close, ends its subscriptions, and its last writes are stored', async () => {
      const runId = hubRunId('close');
      const hub = await fixture.open(errors);
      let ended = 0;
      await hub.subscribe(runId, () => {}, { onEnd: () => ended++ });
      for (const seq of seqs(1, 5)) void hub.publish(runId, event(runId, seq));
      await hub.close();
      expect(ended).toBe(1);
      expect(hub.listeners(runId)).toBe(0);
      await expect(hub.subscribe(runId, () => {})).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      const got = collector();
      const subscription = await reader.subscribe(runId, got.listener, { after: 0 });
      await got.until(5);
      expect(got.seen()).toEqual(names(seqs(1, 5)));
      subscription.unsubscribe();
    });
  });
}
