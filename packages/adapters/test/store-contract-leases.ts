/**
 * The lease half of the store contract (DESIGN §12), run against every store by
 * `describeStoreContract`: a lease is stored beside the snapshot, judged by the store alone on its
 * own clock, in the same atomic step as the version check; `renew` extends it without a write;
 * `listExpired` lists due runs earliest first.
 */
import type { SnapshotStore, TurnkitError } from '@turnkit/core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CONCURRENT_WRITERS,
  expectConflict,
  freshRunId,
  type StoreClock,
  type StoreFixture,
} from './helpers/store-fixtures.js';

/** Host clocks this far off either way must not change any lease decision. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Registers the lease tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeLeaseContract(fixture: () => StoreFixture): void {
  describe('leases', () => {
    let store: SnapshotStore;
    let clock: StoreClock;
    let leaseMs: number;
    /** Moves the store clock past a lease taken now, with a margin for real clocks. */
    const outlive = () => clock.elapse(Math.ceil((leaseMs * 4) / 3));
    beforeAll(() => {
      ({ store, clock } = fixture());
      leaseMs = clock.leaseMs;
    });

    it('reports no lease after a write without one', async () => {
      const runId = freshRunId('no-lease');
      await store.put(runId, 'free', { expectedVersion: null });
      expect(await store.get(runId)).toEqual({ snapshot: 'free', version: 1, lease: null });
    });

    it('takes a lease with a write; it is live until it ends on the store clock', async () => {
      const runId = freshRunId('take');
      await store.put(runId, 'claimed', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      expect(await store.get(runId)).toEqual({
        snapshot: 'claimed',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
      await outlive();
      expect((await store.get(runId))?.lease).toEqual({ owner: 'worker-a', live: false });
    });

    it("refuses another owner's write under a live lease with ConflictError, and changes nothing", async () => {
      const runId = freshRunId('held');
      await store.put(runId, 'mine', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      await expectConflict(
        store.put(runId, 'theirs', { expectedVersion: 1, lease: { owner: 'worker-b', ms: leaseMs } }),
      );
      await expectConflict(
        store.put(runId, 'theirs', { expectedVersion: 1, lease: { owner: 'worker-b', ms: 0 } }),
      );
      await expectConflict(store.put(runId, 'nobody', { expectedVersion: 1, lease: null }));
      await expectConflict(store.put(runId, 'nobody', { expectedVersion: 1 }));
      expect(await store.get(runId)).toEqual({
        snapshot: 'mine',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
    });

    it('lets the owner write again under its own lease, and release it with ms 0', async () => {
      const runId = freshRunId('same-owner');
      await store.put(runId, 'claim', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      expect(
        await store.put(runId, 'step', { expectedVersion: 1, lease: { owner: 'worker-a', ms: leaseMs } }),
      ).toEqual({
        version: 2,
      });
      expect((await store.get(runId))?.lease).toEqual({ owner: 'worker-a', live: true });
      expect(
        await store.put(runId, 'done', { expectedVersion: 2, lease: { owner: 'worker-a', ms: 0 } }),
      ).toEqual({
        version: 3,
      });
      expect(await store.get(runId)).toEqual({ snapshot: 'done', version: 3, lease: null });
      // Released: a write without a lease, or another owner's claim, goes through at once.
      expect(await store.put(runId, 'answer', { expectedVersion: 3 })).toEqual({ version: 4 });
      await store.put(runId, 'next', { expectedVersion: 4, lease: { owner: 'worker-b', ms: leaseMs } });
      expect((await store.get(runId))?.lease).toEqual({ owner: 'worker-b', live: true });
    });

    it('lets a new owner take over a lease that ended, and then refuses the old owner', async () => {
      const runId = freshRunId('takeover');
      await store.put(runId, 'a', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      await outlive();
      expect(
        await store.put(runId, 'b', { expectedVersion: 1, lease: { owner: 'worker-b', ms: leaseMs } }),
      ).toEqual({
        version: 2,
      });
      expect((await store.get(runId))?.lease).toEqual({ owner: 'worker-b', live: true });
      await expectConflict(
        store.put(runId, 'a-late', { expectedVersion: 2, lease: { owner: 'worker-a', ms: leaseMs } }),
      );
      expect((await store.get(runId))?.snapshot).toBe('b');
    });

    it('renews: keeps the version and extends the lease from now', async () => {
      const runId = freshRunId('renew');
      await store.put(runId, 'long turn', {
        expectedVersion: null,
        lease: { owner: 'worker-a', ms: leaseMs },
      });
      await clock.elapse(leaseMs / 2);
      await store.renew(runId, { owner: 'worker-a', version: 1, ms: leaseMs });
      // Past the first lease's end, within the renewed one.
      await clock.elapse((leaseMs * 3) / 4);
      expect(await store.get(runId)).toEqual({
        snapshot: 'long turn',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
      await expectConflict(
        store.put(runId, 'b', { expectedVersion: 1, lease: { owner: 'worker-b', ms: leaseMs } }),
      );
      await clock.elapse(leaseMs / 2);
      expect((await store.get(runId))?.lease).toEqual({ owner: 'worker-a', live: false });
    });

    it('refuses to renew after a takeover, for another owner, on a moved version, after a release or for no run', async () => {
      const renewA = (runId: string, version: number) =>
        store.renew(runId, { owner: 'worker-a', version, ms: leaseMs });
      const takenOver = freshRunId('renew-takeover');
      await store.put(takenOver, 'a', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      await outlive();
      await store.put(takenOver, 'b', { expectedVersion: 1, lease: { owner: 'worker-b', ms: leaseMs } });
      await expectConflict(renewA(takenOver, 1));
      await expectConflict(renewA(takenOver, 2));
      expect((await store.get(takenOver))?.lease).toEqual({ owner: 'worker-b', live: true });

      const moved = freshRunId('renew-moved');
      await store.put(moved, 'a', { expectedVersion: null, lease: { owner: 'worker-a', ms: leaseMs } });
      await store.put(moved, 'a2', { expectedVersion: 1, lease: { owner: 'worker-a', ms: leaseMs } });
      await expectConflict(renewA(moved, 1));

      const released = freshRunId('renew-released');
      await store.put(released, 'a', { expectedVersion: null, lease: { owner: 'worker-a', ms: 0 } });
      await expectConflict(renewA(released, 1));
      expect((await store.get(released))?.lease).toBeNull();

      await expectConflict(renewA(freshRunId('renew-missing'), 1));
    });

    it('lists expired runs earliest first, at most limit', async () => {
      // Dates no other test uses, so runs of other tests in the same store never interleave.
      const at = (hour: number) => `1990-01-01T0${hour}:00:00.000Z`;
      const [first, second, third, later] = ['1', '2', '3', '4'].map((label) => freshRunId(`due-${label}`));
      await store.put(third!, 'c', { expectedVersion: null, expiresAt: at(3) });
      await store.put(first!, 'a', { expectedVersion: null, expiresAt: at(1) });
      await store.put(later!, 'd', { expectedVersion: null, expiresAt: at(5) });
      await store.put(second!, 'b', {
        expectedVersion: null,
        expiresAt: at(2),
        lease: { owner: 'w', ms: leaseMs },
      });
      const before = new Date(at(4));
      expect(await store.listExpired(before)).toEqual([first, second, third]);
      expect(await store.listExpired(before, 2)).toEqual([first, second]);
      expect(await store.listExpired(before, 1)).toEqual([first]);
      expect(await store.listExpired(before, 0)).toEqual([]);
      expect(await store.listExpired(new Date(at(2)))).toEqual([first, second]);
    });

    it(`lets exactly one of ${CONCURRENT_WRITERS} concurrent claimers take the lease`, async () => {
      const runId = freshRunId('claim-race');
      await store.put(runId, 'waiting', { expectedVersion: null });
      const claim = (owner: string, expectedVersion: number) =>
        store.put(runId, owner, { expectedVersion, lease: { owner, ms: leaseMs } });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CONCURRENT_WRITERS }, (_, index) => claim(`claimer-${index}`, 1)),
      );
      const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
      expect(winners).toHaveLength(1);
      const winner = `claimer-${winners[0]}`;
      expect(await store.get(runId)).toEqual({
        snapshot: winner,
        version: 2,
        lease: { owner: winner, live: true },
      });
      // The run is now held: later claimers lose even with the right version.
      const late = await Promise.allSettled(
        Array.from({ length: 5 }, (_, index) => claim(`late-${index}`, 2)),
      );
      expect(late.every((outcome) => outcome.status === 'rejected')).toBe(true);
      expect((await store.get(runId))?.version).toBe(2);
    });

    it('refuses a lease of a negative or fractional length with CONFIG_INVALID', async () => {
      const runId = freshRunId('bad-ms');
      for (const ms of [-1, 1.5, Number.NaN]) {
        const error = await store.put(runId, 'x', { expectedVersion: null, lease: { owner: 'w', ms } }).then(
          () => expect.fail('expected a refusal'),
          (caught: unknown) => caught as TurnkitError,
        );
        expect(error.code).toBe('CONFIG_INVALID');
      }
      expect(await store.get(runId)).toBeNull();
    });

    it('judges leases by the server clock alone: clients 5 minutes apart agree', async (context) => {
      const { peer } = fixture();
      if (!peer) return context.skip();
      const runId = freshRunId('skew');
      const realNow = Date.now();
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        // A client 5 minutes behind takes the lease; one 5 minutes ahead, on whose clock that lease
        // ended long ago, still sees it live and cannot take the run.
        vi.setSystemTime(realNow - CLOCK_SKEW_MS);
        await store.put(runId, 'behind', { expectedVersion: null, lease: { owner: 'behind', ms: leaseMs } });
        vi.setSystemTime(realNow + CLOCK_SKEW_MS);
        expect((await peer.get(runId))?.lease).toEqual({ owner: 'behind', live: true });
        await expectConflict(
          peer.put(runId, 'ahead', { expectedVersion: 1, lease: { owner: 'ahead', ms: leaseMs } }),
        );
        // Once the lease ended on the server, a client on whose clock it would still run can take over.
        await outlive();
        vi.setSystemTime(realNow - 2 * CLOCK_SKEW_MS);
        expect((await peer.get(runId))?.lease).toEqual({ owner: 'behind', live: false });
        expect(
          await peer.put(runId, 'ahead', { expectedVersion: 1, lease: { owner: 'ahead', ms: leaseMs } }),
        ).toEqual({ version: 2 });
        await expectConflict(
          store.put(runId, 'behind', { expectedVersion: 2, lease: { owner: 'behind', ms: leaseMs } }),
        );
      } finally {
        vi.useRealTimers();
      }
    });
  });
}
