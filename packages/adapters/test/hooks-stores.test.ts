/**
 * Hooks' reviews in store mode (DESIGN §26), on the memory, file, Redis and PostgreSQL stores: a
 * review asked through one client is decided through another, and two decisions at once play the
 * run once; a worker that approved a review and was killed with SIGKILL inside the tool leaves the
 * call in doubt, and the process that takes over never runs the asking hook, nor those after it,
 * again — the tool runs once more only when a person says so.
 */
import { createSessions, type SessionResult } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { CHARGE_CALL_ID, countingReviewedAgent } from './helpers/hooks-agent.js';
import { bundleInDoubtWorker, killedInsideExecute, LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, type StoreKind, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
bundleInDoubtWorker({ 'hooks-worker': 'fixtures/hooks-worker.ts' });

const KINDS: StoreKind[] = ['memory', 'file', 'redis', 'postgres'];

const chargeResult = (result: SessionResult) =>
  result.messages.find((message) => message.role === 'tool' && message.tool_call_id === CHARGE_CALL_ID)
    ?.content;

describe.each(KINDS)('a hook review on the %s store', (kind) => {
  it.skipIf(servers.missing(kind))(
    'is asked through one client, decided through another; two decisions at once play it once',
    async () => {
      const backend = await sharedStores(kind, 'hooks-review', 2, servers.urls[kind]);
      try {
        const { agent, runs } = countingReviewedAgent();
        const [first, second] = backend.stores.map((store) => createSessions({ agent, store }));
        const paused = await first!.start({ input: 'charge 5' });
        expect(paused.pendingQuestion).toMatchObject({
          kind: 'review',
          payload: { hook: 'gate', point: 'beforeTool', subject: { name: 'charge', input: { amount: 5 } } },
        });
        const inbox = await second!.inbox({ kind: 'review' });
        expect(inbox.items.map((item) => [item.runId, item.summary])).toEqual([
          [paused.runId, 'Charges are reviewed'],
        ]);
        const id = paused.pendingQuestion!.id;
        const decided = await Promise.allSettled([
          first!.approve(paused.runId, { id, edit: { amount: 4 } }),
          second!.approve(paused.runId, { id, edit: { amount: 4 } }),
        ]);
        expect(decided.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
        const done = await second!.get(paused.runId);
        expect(done.status).toBe('completed');
        expect(JSON.parse(chargeResult(done)!)).toEqual({ charged: 4, input_edited_by_user: { amount: 4 } });
        expect(runs).toEqual(['gate', 'audit', `execute:${paused.runId}:${CHARGE_CALL_ID}`]);
      } finally {
        await backend.teardown();
      }
    },
  );
});

describe.each(['file', 'redis', 'postgres'] as const)(
  'a worker killed after a review, on the %s store',
  (kind) => {
    it.skipIf(servers.missing(kind))(
      'leaves the call in doubt: no hook runs again, and the tool runs again only once approved',
      async () => {
        const backend = await sharedStores(kind, 'hooks-kill', 1, servers.urls[kind]);
        try {
          const store = backend.stores[0]!;
          const runId = `run_hooks_${Math.random().toString(36).slice(2, 10)}`;
          const key = await killedInsideExecute(
            { address: backend.address!, leaseMs: LEASE_MS, runId },
            'hooks-worker',
          );
          await leaseLapse(store, runId);
          const { agent, runs } = countingReviewedAgent();
          const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
          const taken = await sessions.retry(runId);
          expect(taken.events.filter((event) => event.type === 'tool_in_doubt')).toHaveLength(1);
          expect(taken.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
          expect(runs).toEqual([]);
          const done = await sessions.approve(runId, { id: taken.pendingQuestion!.id });
          expect(done.status).toBe('completed');
          expect(runs).toEqual([`execute:${key}`]);
        } finally {
          await backend.teardown();
        }
      },
    );
  },
);
