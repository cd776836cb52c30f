/**
 * The row-layout-2 half of the store contract (DESIGN §17), run by `describeStoreContract` against
 * every store that has `getParts` and `putParts`: a head plus append-only logs, written under the
 * same version and lease rules as `put`, in one atomic step with them (a refused write appends
 * nothing); `get` assembles the row, `put` replaces it whole, and an append onto a whole row is refused.
 */
import { ConflictError, type SnapshotStore } from '@turnkit/core';
import type { PartsWrite } from '@turnkit/core/store';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembledParts,
  bigSnapshot,
  CONCURRENT_WRITERS,
  expectConflict,
  freshRunId,
  partsHead,
  type StoreFixture,
} from './helpers/store-fixtures.js';

type PartsStore = SnapshotStore & Required<Pick<SnapshotStore, 'getParts' | 'putParts'>>;

const append = (label: string, messages: string, resolved = ''): PartsWrite => ({
  head: partsHead(label),
  mode: 'append',
  messages,
  resolved,
});
const rewrite = (label: string, messages: string, resolved = ''): PartsWrite => ({
  ...append(label, messages, resolved),
  mode: 'rewrite',
});

/** Registers the layout-2 tests; `fixture` is read once the enclosing suite has set the store up. */
export function describePartsContract(fixture: () => StoreFixture): void {
  describe('row layout 2 (getParts / putParts)', () => {
    let store: PartsStore;
    let leaseMs: number;
    beforeAll(() => {
      store = fixture().store as PartsStore;
      leaseMs = fixture().clock.leaseMs;
      expect(typeof store.getParts).toBe('function');
      expect(typeof store.putParts).toBe('function');
    });

    it('appends each write after the stored log texts, and get assembles the row', async () => {
      const runId = freshRunId('parts');
      expect(await store.putParts(runId, rewrite('one', '1'), { expectedVersion: null })).toEqual({
        version: 1,
      });
      await store.putParts(runId, append('two', '2,3', '"a"'), { expectedVersion: 1 });
      await store.putParts(runId, append('three', ''), { expectedVersion: 2 });
      await store.putParts(runId, append('four', '4', '"b"'), { expectedVersion: 3 });
      expect(await store.getParts(runId)).toEqual({
        head: partsHead('four'),
        messages: '1,2,3,4',
        resolved: '"a","b"',
        version: 4,
        lease: null,
      });
      expect(await store.get(runId)).toEqual({
        snapshot: assembledParts('four', '1,2,3,4', '"a","b"'),
        version: 4,
        lease: null,
      });
    });

    it('creates a run with an append, and replaces both logs with a rewrite', async () => {
      const runId = freshRunId('rewrite');
      await store.putParts(runId, append('first', '1', '"a"'), { expectedVersion: null });
      await store.putParts(runId, append('second', '2'), { expectedVersion: 1 });
      await store.putParts(runId, rewrite('third', '7,8'), { expectedVersion: 2 });
      await store.putParts(runId, append('fourth', '', '"z"'), { expectedVersion: 3 });
      expect(await store.getParts(runId)).toMatchObject({ messages: '7,8', resolved: '"z"', version: 4 });
    });

    it('reads a row written whole as { snapshot }; put replaces a layout-2 row whole; an append onto a whole row is refused', async () => {
      const runId = freshRunId('mixed');
      await store.put(runId, 'whole', { expectedVersion: null });
      expect(await store.getParts(runId)).toEqual({ snapshot: 'whole', version: 1, lease: null });
      await expectConflict(store.putParts(runId, append('x', '1'), { expectedVersion: 1 }));
      expect(await store.get(runId)).toEqual({ snapshot: 'whole', version: 1, lease: null });
      await store.putParts(runId, rewrite('parts', '1,2', '"a"'), { expectedVersion: 1 });
      await store.put(runId, 'whole again', { expectedVersion: 2 });
      expect(await store.getParts(runId)).toEqual({ snapshot: 'whole again', version: 3, lease: null });
      // The old logs are gone: a rewrite starts from nothing.
      await store.putParts(runId, rewrite('fresh', '9'), { expectedVersion: 3 });
      expect(await store.getParts(runId)).toMatchObject({ messages: '9', resolved: '', version: 4 });
    });

    it('refuses stale, existing and held writes with ConflictError, appending nothing', async () => {
      const runId = freshRunId('parts-stale');
      await store.putParts(runId, rewrite('base', '1'), {
        expectedVersion: null,
        lease: { owner: 'worker-a', ms: leaseMs },
      });
      await expectConflict(store.putParts(runId, rewrite('again', '2'), { expectedVersion: null }));
      await expectConflict(store.putParts(runId, append('late', '2'), { expectedVersion: 7 }));
      await expectConflict(
        store.putParts(runId, append('theirs', '2'), {
          expectedVersion: 1,
          lease: { owner: 'worker-b', ms: leaseMs },
        }),
      );
      await expectConflict(store.putParts(runId, append('nobody', '2'), { expectedVersion: 1 }));
      await expectConflict(store.putParts(freshRunId('absent'), append('x', '1'), { expectedVersion: 1 }));
      expect(await store.getParts(runId)).toEqual({
        head: partsHead('base'),
        messages: '1',
        resolved: '',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
    });

    it('keeps, renews and releases a lease on a layout-2 row, and lists its expiry', async () => {
      const runId = freshRunId('parts-lease');
      await store.putParts(runId, rewrite('claim', '1'), {
        expectedVersion: null,
        lease: { owner: 'worker-a', ms: leaseMs },
        expiresAt: '1991-01-01T00:00:00.000Z',
      });
      await store.renew(runId, { owner: 'worker-a', version: 1, ms: leaseMs });
      expect(await store.getParts(runId)).toMatchObject({
        messages: '1',
        version: 1,
        lease: { owner: 'worker-a', live: true },
      });
      expect(await store.listExpired(new Date('1991-01-01T00:00:00.000Z'))).toContain(runId);
      await store.putParts(runId, append('result', '2'), {
        expectedVersion: 1,
        lease: { owner: 'worker-a', ms: 0 },
        expiresAt: null,
      });
      expect(await store.getParts(runId)).toMatchObject({ messages: '1,2', version: 2, lease: null });
      expect(await store.listExpired(new Date('1991-01-01T00:00:00.000Z'))).not.toContain(runId);
    });

    it(`lets exactly one of ${CONCURRENT_WRITERS} concurrent appenders win: the logs hold its text alone`, async () => {
      const runId = freshRunId('parts-race');
      await store.putParts(runId, rewrite('base', '0'), { expectedVersion: null });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CONCURRENT_WRITERS }, (_, writer) =>
          store.putParts(runId, append(`w${writer}`, `${writer + 1}`, `"r${writer}"`), {
            expectedVersion: 1,
            lease: { owner: `w${writer}`, ms: leaseMs },
          }),
        ),
      );
      const winners = outcomes.flatMap((outcome, writer) => (outcome.status === 'fulfilled' ? [writer] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConflictError);
      }
      const winner = winners[0]!;
      expect(await store.getParts(runId)).toEqual({
        head: partsHead(`w${winner}`),
        messages: `0,${winner + 1}`,
        resolved: `"r${winner}"`,
        version: 2,
        lease: { owner: `w${winner}`, live: true },
      });
    });

    it('keeps 5 MB of log text and unicode intact, and deletes a run with its logs', async () => {
      const runId = freshRunId('parts-large');
      const large = bigSnapshot(5 * 1024 * 1024);
      const unicode = JSON.stringify({
        text: '🧪 细胞系 K562 — ثلج — e\u0301',
        lone: '\ud800',
        nul: '\u0000',
      });
      await store.putParts(runId, rewrite('large', large), { expectedVersion: null });
      await store.putParts(runId, append('unicode', unicode, unicode), { expectedVersion: 1 });
      const row = await store.getParts(runId);
      expect(row && 'head' in row && row.messages === `${large},${unicode}`).toBe(true);
      expect(row && 'head' in row && row.resolved).toBe(unicode);
      await store.delete(runId);
      expect(await store.getParts(runId)).toBeNull();
      await store.putParts(runId, append('again', '1'), { expectedVersion: null });
      expect(await store.getParts(runId)).toMatchObject({ messages: '1', resolved: '', version: 1 });
      await store.delete(runId);
    });
  });
}
