/**
 * The inbox half of the store contract (DESIGN §20), run by `describeStoreContract` against every
 * store: each write replaces its run's entries in the index (`PutOptions.pending`) in the same
 * atomic step, and `listPending` pages through them oldest first with a cursor, filtered. Each test
 * names its own principal, assignee or kind, since the store is shared with the rest of the suite.
 */
import { randomUUID } from 'node:crypto';
import { createSessions, type SnapshotStore } from '@turnkit/core';
import type { PendingFilter, PendingIndexEntry, PendingItem } from '@turnkit/core/store';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectConflict, freshRunId, partsHead, type StoreFixture } from './helpers/store-fixtures.js';
import { approvalAgent } from './helpers/store-resume.js';

type PendingStore = SnapshotStore & Required<Pick<SnapshotStore, 'listPending' | 'putParts'>>;

const unique = (label: string) => `${label}-${randomUUID()}`;
const minute = (n: number) => new Date(Date.UTC(2030, 0, 1, 9, n)).toISOString();

function entry(id: string, askedMinute: number, extra: Partial<PendingIndexEntry> = {}): PendingIndexEntry {
  return {
    id,
    kind: 'question',
    agentPath: ['inventory'],
    summary: `Question ${id}?`,
    askedAt: minute(askedMinute),
    ...extra,
  };
}

/** Every page of `filter`, `limit` at a time. */
async function allPages(store: PendingStore, filter: PendingFilter, limit: number) {
  const pages: PendingItem[][] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listPending(filter, limit, cursor);
    pages.push(page.items);
    cursor = page.cursor;
  } while (cursor !== null && pages.length < 50);
  return pages;
}

const ids = (items: PendingItem[]) => items.map((item) => `${item.runId}/${item.id}`);

/** Registers the inbox tests; `fixture` is read once the enclosing suite has set the store up. */
export function describePendingContract(fixture: () => StoreFixture): void {
  describe('the inbox index (listPending)', () => {
    let store: PendingStore;
    beforeAll(() => {
      store = fixture().store as PendingStore;
      expect(typeof store.listPending).toBe('function');
    });

    it('lists what each write gave, oldest first, and forgets it when a later write gives none or the run is deleted', async () => {
      const principal = unique('owner');
      const [first, second] = [freshRunId('inbox'), freshRunId('inbox')];
      await store.put(first, 'a', {
        expectedVersion: null,
        pending: [entry('q2', 5, { principal }), entry('q1', 3, { principal, expiresAt: minute(30) })],
      });
      await store.putParts(
        second,
        { head: partsHead('b'), messages: '', resolved: '', mode: 'rewrite' },
        { expectedVersion: null, pending: [entry('q1', 4, { principal, assignees: ['ana', 'bo'] })] },
      );
      const page = await store.listPending({ principal }, 10, null);
      expect(page).toEqual({
        items: [
          { ...entry('q1', 3, { principal, expiresAt: minute(30) }), runId: first },
          { ...entry('q1', 4, { principal, assignees: ['ana', 'bo'] }), runId: second },
          { ...entry('q2', 5, { principal }), runId: first },
        ],
        cursor: null,
      });
      await store.put(first, 'a2', { expectedVersion: 1, pending: [entry('q2', 5, { principal })] });
      expect(ids((await store.listPending({ principal }, 10, null)).items)).toEqual([
        `${second}/q1`,
        `${first}/q2`,
      ]);
      await store.put(first, 'a3', { expectedVersion: 2 });
      await store.delete(second);
      expect((await store.listPending({ principal }, 10, null)).items).toEqual([]);
    });

    it('pages with a cursor, each entry once, and gives a null cursor on the last page', async () => {
      const kind = unique('kind');
      const written: string[] = [];
      for (let n = 0; n < 7; n++) {
        const runId = freshRunId('page');
        // Two entries asked at the same instant: ordered by run id, then id.
        await store.put(runId, 's', {
          expectedVersion: null,
          pending: [entry('a', n % 3, { kind }), entry('b', n % 3, { kind })],
        });
        written.push(`${runId}/a`, `${runId}/b`);
      }
      const pages = await allPages(store, { kind }, 4);
      expect(pages.map((page) => page.length)).toEqual([4, 4, 4, 2]);
      const listed = pages.flatMap(ids);
      expect(new Set(listed).size).toBe(14);
      expect(listed.sort()).toEqual([...written].sort());
      const asked = pages.flat().map((item) => item.askedAt);
      expect(asked).toEqual([...asked].sort());
      // Exactly one page's worth: the cursor of that page leads to an empty last page, or is null.
      const whole = await store.listPending({ kind }, 14, null);
      expect(whole.items).toHaveLength(14);
      if (whole.cursor !== null)
        expect(await store.listPending({ kind }, 14, whole.cursor)).toEqual({ items: [], cursor: null });
    });

    it('filters by assignee, principal (or none), visibility, kind and expiry', async () => {
      const kind = unique('kind');
      const [ana, bo] = [unique('ana'), unique('bo')];
      const [mine, theirs, nobodys] = [freshRunId('f'), freshRunId('f'), freshRunId('f')];
      await store.put(mine, 's', {
        expectedVersion: null,
        pending: [entry('q', 1, { kind, principal: ana, expiresAt: minute(10) })],
      });
      await store.put(theirs, 's', {
        expectedVersion: null,
        pending: [entry('q', 2, { kind, principal: bo, assignees: [ana] }), entry('x', 3, { principal: bo })],
      });
      await store.put(nobodys, 's', { expectedVersion: null, pending: [entry('q', 4, { kind })] });
      const listed = async (filter: PendingFilter) => ids((await store.listPending(filter, 10, null)).items);
      expect(await listed({ assignee: ana })).toEqual([`${theirs}/q`]);
      expect(await listed({ principal: bo })).toEqual([`${theirs}/q`, `${theirs}/x`]);
      expect(await listed({ kind, principal: null })).toEqual([`${nobodys}/q`]);
      expect(await listed({ visibleTo: ana })).toEqual([`${mine}/q`, `${theirs}/q`]);
      expect(await listed({ visibleTo: bo, kind })).toEqual([`${theirs}/q`]);
      expect(await listed({ kind, expiringBefore: minute(10) })).toEqual([`${mine}/q`]);
      expect(await listed({ kind, expiringBefore: minute(9) })).toEqual([]);
    });

    it('is kept by sessions: a paused run is listed with its ask, and leaves once approved', async () => {
      const principal = unique('owner');
      const sessions = createSessions({ agent: approvalAgent(0), store });
      const paused = await sessions.start({ input: 'thaw', runId: freshRunId('sessions') }, { principal });
      expect((await sessions.inbox({ principal })).items).toEqual([
        {
          runId: paused.runId,
          id: paused.pending[0]!.id,
          kind: 'approval',
          agentPath: ['freezer'],
          summary: 'record_thaw approval',
          askedAt: paused.pending[0]!.createdAt,
        },
      ]);
      await sessions.approve(paused.runId, {}, { principal });
      expect((await sessions.inbox({ principal })).items).toEqual([]);
    });

    it('leaves the index as it was when a write is refused', async () => {
      const principal = unique('owner');
      const runId = freshRunId('refused');
      await store.put(runId, 's', { expectedVersion: null, pending: [entry('q', 1, { principal })] });
      await expectConflict(
        store.put(runId, 'late', { expectedVersion: 7, pending: [entry('other', 2, { principal })] }),
      );
      expect(ids((await store.listPending({ principal }, 10, null)).items)).toEqual([`${runId}/q`]);
    });
  });
}
