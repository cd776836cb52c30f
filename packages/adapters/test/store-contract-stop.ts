/**
 * The stop half of the store contract (DESIGN §20), run against every store by
 * `describeStoreContract`: `requestStop` marks a live lease, atomically and without moving the
 * version; the owner's renewals return the mark; the owner's own writes that keep the lease keep
 * it, and any other write drops it.
 */
import type { SnapshotStore } from '@turnkit/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshRunId, partsHead, type StoreClock, type StoreFixture } from './helpers/store-fixtures.js';

/** Registers the stop tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeStopContract(fixture: () => StoreFixture): void {
  describe('stop marks', () => {
    let store: SnapshotStore & Required<Pick<SnapshotStore, 'requestStop'>>;
    let clock: StoreClock;
    let leaseMs: number;
    const renew = (runId: string, owner: string, version: number) =>
      store.renew(runId, { owner, version, ms: leaseMs });
    const claim = async (label: string, owner = 'worker-a') => {
      const runId = freshRunId(label);
      await store.put(runId, 'claimed', { expectedVersion: null, lease: { owner, ms: leaseMs } });
      return runId;
    };
    beforeAll(() => {
      const given = fixture();
      expect(typeof given.store.requestStop).toBe('function');
      store = given.store as typeof store;
      clock = given.clock;
      leaseMs = clock.leaseMs;
    });

    it('marks a live lease without moving the version; its renewals return the mark', async () => {
      const runId = await claim('stop-mark');
      expect(await renew(runId, 'worker-a', 1)).toEqual({ stop: null });
      expect(await store.requestStop(runId, { reason: 'wrong vial — stop' })).toBe(true);
      expect(await store.get(runId)).toEqual({
        snapshot: 'claimed',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
      expect(await renew(runId, 'worker-a', 1)).toEqual({ stop: { reason: 'wrong vial — stop' } });
      // A second request keeps the first reason; one without a reason marks too.
      expect(await store.requestStop(runId, { reason: 'again' })).toBe(true);
      expect(await renew(runId, 'worker-a', 1)).toEqual({ stop: { reason: 'wrong vial — stop' } });
      const bare = await claim('stop-bare');
      expect(await store.requestStop(bare, {})).toBe(true);
      expect(await renew(bare, 'worker-a', 1)).toEqual({ stop: {} });
    });

    it('refuses (false, nothing changed) a run without a live lease, or none stored', async () => {
      expect(await store.requestStop(freshRunId('stop-missing'), {})).toBe(false);
      const free = freshRunId('stop-free');
      await store.put(free, 'at rest', { expectedVersion: null });
      expect(await store.requestStop(free, {})).toBe(false);
      expect(await store.get(free)).toEqual({ snapshot: 'at rest', version: 1, lease: null });
      const lapsed = await claim('stop-lapsed');
      await clock.elapse(Math.ceil((leaseMs * 4) / 3));
      expect(await store.requestStop(lapsed, {})).toBe(false);
      // A new owner takes the lapsed run over: no mark was left for it.
      await store.put(lapsed, 'taken', { expectedVersion: 1, lease: { owner: 'worker-b', ms: leaseMs } });
      expect(await renew(lapsed, 'worker-b', 2)).toEqual({ stop: null });
    });

    it("keeps the mark across the owner's writes that keep the lease (whole and in parts)", async () => {
      const runId = await claim('stop-steps');
      await store.requestStop(runId, { reason: 'enough' });
      await store.put(runId, 'step', { expectedVersion: 1, lease: { owner: 'worker-a', ms: leaseMs } });
      expect(await renew(runId, 'worker-a', 2)).toEqual({ stop: { reason: 'enough' } });
      if (store.putParts) {
        const head = partsHead('stop-steps');
        const lease = { owner: 'worker-a', ms: leaseMs };
        const parts = { head, messages: '', resolved: '' };
        await store.putParts(runId, { ...parts, mode: 'rewrite' }, { expectedVersion: 2, lease });
        await store.putParts(
          runId,
          { ...parts, messages: '1', mode: 'append' },
          { expectedVersion: 3, lease },
        );
        expect(await renew(runId, 'worker-a', 4)).toEqual({ stop: { reason: 'enough' } });
      }
    });

    it('drops the mark with the result write (ms 0): the next claim is not stopped', async () => {
      const runId = await claim('stop-result');
      await store.requestStop(runId, { reason: 'enough' });
      await store.put(runId, 'aborted', { expectedVersion: 1, lease: { owner: 'worker-a', ms: 0 } });
      expect(await store.get(runId)).toEqual({ snapshot: 'aborted', version: 2, lease: null });
      await store.put(runId, 'next turn', { expectedVersion: 2, lease: { owner: 'worker-a', ms: leaseMs } });
      expect(await renew(runId, 'worker-a', 3)).toEqual({ stop: null });
    });
  });
}
