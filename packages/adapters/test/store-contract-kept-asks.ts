/**
 * Asks that are kept (DESIGN §30) over each store, run by `describeStoreContract`: the store lists a
 * run whose reminder or escalation step is due (the row's next wake), the store's compare-and-set
 * makes two sweepers at once — two clients of the store, as two processes are — fire each reminder
 * and escalation once, the inbox index shows the escalated assignees, and an extension moves the
 * wake so the old expiry passes unswept.
 */
import {
  askUserQuestion,
  createSessions,
  defineAgent,
  type InteractionNotice,
  type PendingInteraction,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoreFixture } from './helpers/store-fixtures.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2031-05-05T08:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

/** An agent whose question waits 10 h for alice: to bob after 2 h, carol after 4 h, reminded 1 h before expiry. */
function keptAgent() {
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel([
      {
        toolCalls: [
          {
            name: 'AskUserQuestion',
            arguments: {
              questions: [{ question: 'Thaw which line?', header: 'Line', options: ['K562', 'HeLa'] }],
            },
          },
        ],
      },
      'done',
    ]),
    tools: [
      askUserQuestion({
        timeoutMs: 10 * HOUR,
        remindBeforeMs: HOUR,
        assignees: ['alice'],
        escalate: [
          { afterMs: 2 * HOUR, assignees: ['bob'] },
          { afterMs: 4 * HOUR, assignees: ['carol'] },
        ],
      }),
    ],
  });
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
}
