/**
 * Asks that are kept (DESIGN §30) over each store, run by `describeStoreContract`: the store lists a
 * run whose reminder or escalation step is due (the row's next wake), the store's compare-and-set
 * makes two sweepers at once — two clients of the store, as two processes are — fire each reminder
 * and escalation once, the inbox index shows the escalated assignees, and an extension moves the
 * wake so the old expiry passes unswept. Late input: `queueMessage` keeps a queue beside the run
 * that writes carry on and only `dequeue` shortens, in the write's own atomic step; sessions over
 * the store deliver a queued message once, to a run waiting on an ask and across a worker that
 * died mid-tool.
 */
import {
  askUserQuestion,
  type ChatMessage,
  createSessions,
  defineTool,
  type InteractionNotice,
  type PendingInteraction,
  type SnapshotStore,
} from '@turnkit/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lineAgent, told, toolAgent } from './helpers/kept-asks.js';
import { expectConflict, freshRunId, partsHead, type StoreFixture } from './helpers/store-fixtures.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2031-05-05T08:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

/** An agent whose question waits 10 h for alice: to bob after 2 h, carol after 4 h, reminded 1 h before expiry. */
function keptAgent() {
  return lineAgent(
    askUserQuestion({
      timeoutMs: 10 * HOUR,
      remindBeforeMs: HOUR,
      assignees: ['alice'],
      escalate: [
        { afterMs: 2 * HOUR, assignees: ['bob'] },
        { afterMs: 4 * HOUR, assignees: ['carol'] },
      ],
    }),
  );
}

/** Sessions over `store` recording every onInteraction call as `reason:assignees`. */
function sweeper(store: SnapshotStore, calls: string[]) {
  const onInteraction = (pending: PendingInteraction, _run: unknown, notice: InteractionNotice) => {
    calls.push(`${notice.reason}:${pending.assignees?.join('+')}`);
  };
  return createSessions({ agent: keptAgent(), store, onInteraction });
}

/** Registers the kept-asks tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeKeptAsksContract(fixture: () => StoreFixture): void {
  describe('asks that are kept (reminders, escalation, extension)', () => {
    let store: SnapshotStore;
    let peer: SnapshotStore;
    beforeAll(() => {
      store = fixture().store;
      peer = fixture().peer ?? store;
    });

    it('fires each reminder and escalation step once when two sweepers sweep at once', async () => {
      const calls: string[] = [];
      const first = sweeper(store, calls);
      const second = sweeper(peer, calls);
      const paused = await first.start('thaw', { now: at(0) });
      const id = paused.pending[0]!.id;
      for (const hours of [1, 2, 4, 9.5, 9.6]) {
        const now = at(hours * HOUR);
        await Promise.all([first.sweep({ now }), second.sweep({ now }), first.sweep({ now })]);
      }
      expect(calls.sort()).toEqual(['asked:alice', 'escalated:bob', 'escalated:carol', 'reminder:carol']);
      const inbox = await second.inbox({ assignee: 'carol' });
      expect(inbox.items.filter((item) => item.runId === paused.runId).map((item) => item.id)).toEqual([id]);
      const stale = await first.inbox({ assignee: 'alice' });
      expect(stale.items.some((item) => item.runId === paused.runId)).toBe(false);
    });

    it('lists a run when its next step is due, and moves that wake when the ask is extended', async () => {
      const calls: string[] = [];
      const sessions = sweeper(store, calls);
      const paused = await sessions.start('thaw', { now: at(0) });
      const id = paused.pending[0]!.id;
      // Listed at the first escalation step, not before.
      expect(await store.listExpired(at(2 * HOUR - 1), 10_000)).not.toContain(paused.runId);
      expect(await store.listExpired(at(2 * HOUR), 10_000)).toContain(paused.runId);
      await sessions.sweep({ now: at(4 * HOUR) });
      await sessions.extend(paused.runId, id, { ms: 24 * HOUR }, { principal: 'carol', now: at(5 * HOUR) });
      // Next wake: the reminder, one hour before the new expiry.
      expect(await store.listExpired(at(32 * HOUR), 10_000)).not.toContain(paused.runId);
      expect(await store.listExpired(at(33 * HOUR), 10_000)).toContain(paused.runId);
      const swept = await sessions.sweep({ now: at(10 * HOUR) });
      expect(swept.swept.find((run) => run.runId === paused.runId)).toBeUndefined();
      expect((await sessions.get(paused.runId, { now: at(10 * HOUR) })).status).toBe('needs_input');
      await sessions.sweep({ now: at(33 * HOUR) });
      expect(calls).toEqual(['asked:alice', 'escalated:bob', 'escalated:carol', 'reminder:carol']);
      const expired = await sessions.sweep({ now: at(34 * HOUR) });
      expect(expired.swept.find((run) => run.runId === paused.runId)?.status).toBe('completed');
    });
  });

  describe('late input (queueMessage, dequeue)', () => {
    let store: SnapshotStore & Required<Pick<SnapshotStore, 'queueMessage'>>;
    let peer: SnapshotStore;
    const entry = (id: string, text = id) => ({
      id,
      messages: JSON.stringify([{ role: 'user', content: text }]),
    });
    const ids = (queued: { id: string }[] | undefined) => (queued ?? []).map((queuedEntry) => queuedEntry.id);
    beforeAll(() => {
      const given = fixture();
      expect(typeof given.store.queueMessage).toBe('function');
      store = given.store as typeof store;
      peer = given.peer ?? store;
    });

    it('queues beside the run without moving the version; an id twice is queued once; reads return it', async () => {
      expect(await store.queueMessage(freshRunId('queue-missing'), entry('a'))).toBeNull();
      const runId = freshRunId('queue-rest');
      await store.put(runId, 'at rest', { expectedVersion: null });
      expect(await store.queueMessage(runId, entry('a', 'thaw — one “HeLa” vial'))).toEqual({ live: false });
      expect(await peer.queueMessage!(runId, entry('a'))).toEqual({ live: false });
      expect(await store.queueMessage(runId, entry('b'))).toEqual({ live: false });
      const read = await store.get(runId);
      expect(read?.version).toBe(1);
      expect(read?.snapshot).toBe('at rest');
      expect(read?.queued).toEqual([entry('a', 'thaw — one “HeLa” vial'), entry('b')]);
      const claimed = freshRunId('queue-live');
      await store.put(claimed, 'claimed', { expectedVersion: null, lease: { owner: 'w', ms: 60_000 } });
      expect(await store.queueMessage(claimed, entry('c'))).toEqual({ live: true });
      expect(ids((await store.renew(claimed, { owner: 'w', version: 1, ms: 60_000 }))?.queued)).toEqual([
        'c',
      ]);
    });

    it('keeps the queue across writes; only a write that succeeds removes the ids it names', async () => {
      const runId = freshRunId('queue-dequeue');
      await store.put(runId, 'v1', { expectedVersion: null });
      await store.queueMessage(runId, entry('a'));
      await store.queueMessage(runId, entry('b'));
      const kept = await store.put(runId, 'v2', { expectedVersion: 1 });
      expect(ids(kept.queued)).toEqual(['a', 'b']);
      await expectConflict(store.put(runId, 'stale', { expectedVersion: 1, dequeue: ['a'] }));
      expect(ids((await store.get(runId))?.queued)).toEqual(['a', 'b']);
      const taken = await store.put(runId, 'v3', { expectedVersion: 2, dequeue: ['a'] });
      expect(ids(taken.queued)).toEqual(['b']);
      if (store.putParts) {
        const parts = await store.putParts(
          runId,
          { mode: 'rewrite', head: partsHead('queue'), messages: '', resolved: '' },
          { expectedVersion: 3, dequeue: ['b'] },
        );
        expect(parts.queued).toBeUndefined();
      } else {
        await store.put(runId, 'v4', { expectedVersion: 3, dequeue: ['b'] });
      }
      expect((await store.get(runId))?.queued).toBeUndefined();
    });

    it('sessions deliver a message queued while an ask waits once, when it is answered', async () => {
      const requests: ChatMessage[][] = [];
      const agent = lineAgent(askUserQuestion(), requests);
      const sessions = createSessions({ agent, store });
      const other = createSessions({ agent, store: peer });
      const paused = await sessions.start('thaw');
      await Promise.all([
        other.send(paused.runId, 'and log it', { mode: 'queue', messageId: 'late-1' }),
        sessions.send(paused.runId, 'and log it', { mode: 'queue', messageId: 'late-1' }),
      ]);
      const done = await other.answer(paused.runId, { answers: 'K562' });
      expect(done.status).toBe('completed');
      expect(told(requests, 'and log it')).toEqual([0, 1]);
      expect((await store.get(paused.runId))?.queued).toBeUndefined();
    });

    it('a worker that dies mid-tool while a message is queued: the takeover delivers it once', async () => {
      const requests: ChatMessage[][] = [];
      const runs: string[] = [];
      let entered = () => {};
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const scan = defineTool({
        name: 'scan',
        description: 'Scan the freezer',
        input: z.object({}),
        execute: async (_input, ctx) => {
          runs.push(ctx.idempotencyKey);
          if (runs.length === 1) {
            entered();
            await new Promise(() => undefined);
          }
          return { racks: 12 };
        },
      });
      const agent = toolAgent(scan, requests);
      const leaseMs = fixture().clock.leaseMs;
      const runId = freshRunId('late-dead');
      const dead: SnapshotStore = { ...store, renew: () => Promise.reject(new Error('ETIMEDOUT')) };
      void createSessions({ agent, store: dead, leaseMs })
        .start({ input: 'scan', runId })
        .catch(() => undefined);
      await inside;
      const sessions = createSessions({ agent, store: peer, leaseMs });
      expect((await sessions.send(runId, 'and log it', { mode: 'queue' })).status).toBe('running');
      await fixture().clock.elapse(leaseMs * 2);
      const done = await sessions.retry(runId);
      expect(done.status).toBe('completed');
      expect(runs).toHaveLength(2);
      expect(told(requests, 'and log it')).toEqual([0, 1]);
      expect((await store.get(runId))?.queued).toBeUndefined();
    });
  });
}
