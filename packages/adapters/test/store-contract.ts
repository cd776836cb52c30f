/**
 * The behaviour every SnapshotStore must have (DESIGN §7 and §12), as one suite run against each
 * store: versions, compare-and-set, delete, expiry listing, large and unicode snapshots, concurrent
 * writers, leases (store-contract-leases.ts), row layout 2 (store-contract-parts.ts), sessions
 * over it (store-contract-sessions.ts), the inbox index (store-contract-pending.ts), steps recorded
 * mid-turn (store-contract-steps.ts), stop marks (store-contract-stop.ts) and kept asks
 * (store-contract-kept-asks.ts). To check a new store:
 * `describeStoreContract('myStore', async () => ({ store, clock, teardown }))`.
 */
import { ConflictError, type SnapshotStore } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigSnapshot,
  CONCURRENT_WRITERS,
  expectConflict,
  freshRunId,
  type StoreFixture,
} from './helpers/store-fixtures.js';
import { describeClockContract } from './store-contract-clock.js';
import { describeForksContract } from './store-contract-forks.js';
import { describeHeadContract } from './store-contract-head.js';
import { describeKeptAsksContract } from './store-contract-kept-asks.js';
import { describeLeaseContract } from './store-contract-leases.js';
import { describePartsContract } from './store-contract-parts.js';
import { describePendingContract } from './store-contract-pending.js';
import { describeSessionsContract } from './store-contract-sessions.js';
import { describeStepsContract } from './store-contract-steps.js';
import { describeStopContract } from './store-contract-stop.js';
import { describeWindowContract } from './store-contract-window.js';

export {
  bigSnapshot,
  CONCURRENT_WRITERS,
  fakeClock,
  freshRunId,
  type StoreFixture,
  serverClock,
} from './helpers/store-fixtures.js';
export { serverUrl } from './store-servers.js';

/** Leaves out the `now` (the store's clock) of a read or a write, once checked to be epoch ms. */
function withoutNow<T extends { now?: number } | null>(result: T): T {
  if (result === null || result.now === undefined) return result;
  const { now, ...rest } = result;
  expect(Number.isFinite(now)).toBe(true);
  return rest as T;
}

/**
 * The store as the exact comparisons of the contract see it: every read and write without its
 * `now`, which store-contract-clock.ts checks on its own.
 */
function clockless(store: SnapshotStore): SnapshotStore {
  return {
    ...store,
    get: async (runId) => withoutNow(await store.get(runId)),
    put: async (runId, snapshot, opts) => withoutNow(await store.put(runId, snapshot, opts)),
    ...(store.getParts && store.putParts
      ? {
          getParts: async (runId: string) => withoutNow(await store.getParts!(runId)),
          putParts: async (...args: Parameters<NonNullable<SnapshotStore['putParts']>>) =>
            withoutNow(await store.putParts!(...args)),
          ...(store.getHead
            ? { getHead: async (runId: string) => withoutNow(await store.getHead!(runId)) }
            : {}),
        }
      : {}),
  };
}

/** Registers the contract suite for one store. `setup` runs once, before the suite. */
export function describeStoreContract(name: string, setup: () => Promise<StoreFixture>): void {
  describe(`${name} (SnapshotStore contract)`, () => {
    let raw: StoreFixture;
    let fixture: StoreFixture;
    let store: SnapshotStore;
    beforeAll(async () => {
      raw = await setup();
      fixture = {
        ...raw,
        store: clockless(raw.store),
        ...(raw.peer ? { peer: clockless(raw.peer) } : {}),
      };
      store = fixture.store;
    });
    afterAll(async () => {
      await raw?.teardown?.();
    });

    it('returns null for a run that was never stored', async () => {
      expect(await store.get(freshRunId('missing'))).toBeNull();
    });

    it('creates a run at version 1 and reads it back', async () => {
      const runId = freshRunId('create');
      expect(await store.put(runId, '{"turn":1}', { expectedVersion: null })).toEqual({ version: 1 });
      expect(await store.get(runId)).toEqual({ snapshot: '{"turn":1}', version: 1, lease: null });
    });

    it('adds 1 to the version on every write', async () => {
      const runId = freshRunId('versions');
      let version: number | null = null;
      for (let turn = 1; turn <= 5; turn++) {
        ({ version } = await store.put(runId, `{"turn":${turn}}`, { expectedVersion: version }));
        expect(version).toBe(turn);
      }
      expect(await store.get(runId)).toEqual({ snapshot: '{"turn":5}', version: 5, lease: null });
    });

    it('refuses a stale expectedVersion with ConflictError, and changes nothing', async () => {
      const runId = freshRunId('stale');
      await store.put(runId, 'v1', { expectedVersion: null });
      await store.put(runId, 'v2', { expectedVersion: 1 });
      await expectConflict(store.put(runId, 'late', { expectedVersion: 1 }));
      await expectConflict(store.put(runId, 'future', { expectedVersion: 7 }));
      expect(await store.get(runId)).toEqual({ snapshot: 'v2', version: 2, lease: null });
    });

    it('refuses to create a run that exists', async () => {
      const runId = freshRunId('exists');
      await store.put(runId, 'first', { expectedVersion: null });
      await expectConflict(store.put(runId, 'second', { expectedVersion: null }));
      expect(await store.get(runId)).toEqual({ snapshot: 'first', version: 1, lease: null });
    });

    it('refuses to update a run that does not exist', async () => {
      const runId = freshRunId('absent');
      await expectConflict(store.put(runId, 'x', { expectedVersion: 1 }));
      expect(await store.get(runId)).toBeNull();
    });

    it('deletes a run, ignores deleting a missing one, and starts again at version 1', async () => {
      const runId = freshRunId('delete');
      await store.put(runId, 'v1', { expectedVersion: null });
      await store.put(runId, 'v2', { expectedVersion: 1 });
      await store.delete(runId);
      expect(await store.get(runId)).toBeNull();
      await store.delete(runId);
      await store.delete(freshRunId('never'));
      expect(await store.put(runId, 'again', { expectedVersion: null })).toEqual({ version: 1 });
    });

    it('keeps runs apart', async () => {
      const [first, second] = [freshRunId('apart'), freshRunId('apart')];
      await store.put(first!, 'one', { expectedVersion: null });
      await store.put(second!, 'two', { expectedVersion: null });
      await store.put(second!, 'two-b', { expectedVersion: 1 });
      expect(await store.get(first!)).toEqual({ snapshot: 'one', version: 1, lease: null });
      expect(await store.get(second!)).toEqual({ snapshot: 'two-b', version: 2, lease: null });
    });

    it('lists the runs whose expiresAt is at or before now', async () => {
      const now = new Date('2030-01-01T12:00:00.000Z');
      const past = freshRunId('expired');
      const exact = freshRunId('exact');
      const future = freshRunId('future');
      const never = freshRunId('never');
      const cleared = freshRunId('cleared');
      await store.put(past, 'a', { expectedVersion: null, expiresAt: '2030-01-01T11:00:00.000Z' });
      await store.put(exact, 'b', { expectedVersion: null, expiresAt: now.toISOString() });
      await store.put(future, 'c', { expectedVersion: null, expiresAt: '2030-01-01T13:00:00.000Z' });
      await store.put(never, 'd', { expectedVersion: null });
      await store.put(cleared, 'e', { expectedVersion: null, expiresAt: '2030-01-01T11:00:00.000Z' });
      await store.put(cleared, 'e2', { expectedVersion: 1, expiresAt: null });
      const listed = await store.listExpired(now);
      expect(listed).toEqual(expect.arrayContaining([past, exact]));
      for (const runId of [future, never, cleared]) expect(listed).not.toContain(runId);
      await store.delete(past);
      expect(await store.listExpired(now)).not.toContain(past);
      expect(await store.listExpired(new Date('2030-01-01T14:00:00.000Z'))).toContain(future);
    });

    it('stores a 5 MB snapshot intact', async () => {
      const runId = freshRunId('large');
      const snapshot = bigSnapshot(5 * 1024 * 1024);
      await store.put(runId, snapshot, { expectedVersion: null });
      const stored = await store.get(runId);
      expect(stored?.version).toBe(1);
      expect(stored?.snapshot.length).toBe(snapshot.length);
      expect(stored?.snapshot === snapshot).toBe(true);
      await store.delete(runId);
    });

    it('stores unicode exactly: emoji, CJK, RTL, combining marks, escaped lone surrogates and NUL', async () => {
      const runId = freshRunId('unicode');
      // JSON.stringify escapes lone surrogates and control characters, as in every TurnKit snapshot.
      const snapshot = JSON.stringify({
        text: '🧪🧬 细胞系 K562 — ثلج — e\u0301 — 👩🏽‍🔬',
        lone: '\ud800 and \udfff',
        control: 'nul:\u0000 tab:\t newline:\n quote:" backslash:\\',
      });
      await store.put(runId, snapshot, { expectedVersion: null });
      expect((await store.get(runId))?.snapshot).toBe(snapshot);
      expect(JSON.parse((await store.get(runId))!.snapshot).lone).toBe('\ud800 and \udfff');
    });

    it(`lets exactly one of ${CONCURRENT_WRITERS} concurrent writers with the same expectedVersion win`, async () => {
      const runId = freshRunId('race');
      await store.put(runId, 'base', { expectedVersion: null });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CONCURRENT_WRITERS }, (_, writer) =>
          store.put(runId, `writer-${writer}`, { expectedVersion: 1 }),
        ),
      );
      const winners = outcomes.flatMap((outcome, writer) => (outcome.status === 'fulfilled' ? [writer] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConflictError);
        else expect(outcome.value).toEqual({ version: 2 });
      }
      expect(await store.get(runId)).toEqual({ snapshot: `writer-${winners[0]}`, version: 2, lease: null });
    });

    it(`lets exactly one of ${CONCURRENT_WRITERS} concurrent creators win`, async () => {
      const runId = freshRunId('create-race');
      const outcomes = await Promise.allSettled(
        Array.from({ length: CONCURRENT_WRITERS }, (_, writer) =>
          store.put(runId, `creator-${writer}`, { expectedVersion: null }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConflictError);
      }
      expect((await store.get(runId))?.version).toBe(1);
    });

    describeLeaseContract(() => fixture);
    describePartsContract(() => fixture);
    describePendingContract(() => raw);
    describeSessionsContract(() => raw);
    describeStepsContract(() => raw);
    describeStopContract(() => fixture);
    describeClockContract(() => raw);
    describeHeadContract(() => raw);
    describeForksContract(() => fixture);
    describeWindowContract(() => raw);
    describeKeptAsksContract(() => raw);
  });
}
