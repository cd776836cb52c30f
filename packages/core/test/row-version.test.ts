/**
 * A signed run's stored text is bound to the row version its write created (issue 26, low):
 * someone who can write the store but not sign (a database restore, an operator, an attacker with
 * the table) restores an older, validly signed row under the run's current version, and the next
 * resume must refuse it with SNAPSHOT_TAMPERED instead of running an approved tool again.
 */
import { describe, expect, it } from 'vitest';
import {
  createSessions,
  memoryStore,
  parseSnapshot,
  SnapshotError,
  type SnapshotStore,
} from '../src/index.js';
import type { StoredParts, StoredSnapshot } from '../src/store.js';
import { makeAgent } from './helpers.js';

const SECRET = 'row-version-test-secret';

/**
 * A store whose content can be swapped for an older one while the version stays the stored one:
 * `restore(runId, content)` makes reads return `content` (as read earlier) with the current version.
 */
function restorableStore(inner: SnapshotStore) {
  const restored = new Map<string, StoredParts | StoredSnapshot>();
  const keep = <T extends StoredParts | StoredSnapshot | null>(runId: string, row: T): T => {
    const old = restored.get(runId);
    if (!row || !old) return row;
    const { version: _version, lease: _lease, ...content } = old;
    return { ...content, version: row.version, lease: row.lease } as T;
  };
  const store: SnapshotStore = {
    ...inner,
    get: async (runId) => keep(runId, await inner.get(runId)),
    getParts: async (runId) => keep(runId, await inner.getParts!(runId)),
    put: (runId, snapshot, opts) => {
      restored.delete(runId);
      return inner.put(runId, snapshot, opts);
    },
    putParts: (runId, write, opts) => {
      restored.delete(runId);
      return inner.putParts!(runId, write, opts);
    },
  };
  return {
    store,
    read: (runId: string) => inner.getParts!(runId),
    restore: (runId: string, row: StoredParts | StoredSnapshot) => restored.set(runId, row),
  };
}

const approvalSteps = () => [
  { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
  'Recorded.',
];

describe('a signed row is bound to its version', () => {
  for (const layout of ['parts', 'whole'] as const) {
    it(`restoring an older signed row under a newer version is SNAPSHOT_TAMPERED, and the tool ran once (${layout})`, async () => {
      const log: string[] = [];
      const agent = makeAgent(approvalSteps(), { snapshot: { secret: SECRET } }, log);
      const inner = memoryStore();
      const { store, restore } = restorableStore(inner);
      const plain = layout === 'whole' ? withoutParts(store) : store;
      const sessions = createSessions({ agent, store: plain });
      const paused = await sessions.start('Thaw one vial of K562.');
      expect(paused.pendingQuestion?.kind).toBe('approval');
      const old = (await inner.getParts!(paused.runId))!;
      const done = await sessions.approve(paused.runId);
      expect(done.status).toBe('completed');
      expect(log).toEqual(['K562x1']);

      restore(paused.runId, old);
      const refused = await sessions.approve(paused.runId).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SnapshotError);
      expect((refused as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
      expect((refused as SnapshotError).message).toMatch(/version/);
      expect(log).toEqual(['K562x1']);
    });
  }

  it('the row a write creates is recorded in the signed text, and still reads as a snapshot', async () => {
    const agent = makeAgent(approvalSteps(), { snapshot: { secret: SECRET } });
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('Thaw one vial of K562.');
    const decoded = parseSnapshot(paused.snapshot, { secret: SECRET });
    expect(decoded.row).toBe(paused.version);
    expect((await sessions.get(paused.runId)).pendingQuestion?.kind).toBe('approval');
  });

  it('an unsigned agent is not refused for a restored row (it has nothing to verify with)', async () => {
    const log: string[] = [];
    const agent = makeAgent(approvalSteps(), {}, log);
    const { store, restore } = restorableStore(memoryStore());
    const sessions = createSessions({ agent, store });
    const paused = await sessions.start('Thaw one vial of K562.');
    const old = (await store.getParts!(paused.runId))!;
    await sessions.approve(paused.runId);
    restore(paused.runId, old);
    expect((await sessions.get(paused.runId)).pendingQuestion?.kind).toBe('approval');
  });
});

/** The same store without row layout 2 (layout-1 rows). */
function withoutParts(store: SnapshotStore): SnapshotStore {
  const { getParts: _getParts, putParts: _putParts, ...rest } = store;
  return rest;
}

describe('a signed run copied into another store', () => {
  it('loads there (its recorded row is above the new version) and goes on', async () => {
    const log: string[] = [];
    const agent = makeAgent(approvalSteps(), { snapshot: { secret: SECRET } }, log);
    const first = createSessions({ agent, store: memoryStore() });
    const paused = await first.start('Thaw one vial of K562.');
    await first.approve(paused.runId).catch(() => undefined);
    const moved = await first.get(paused.runId);
    const target = memoryStore();
    await target.put(paused.runId, moved.snapshot, { expectedVersion: null });
    const second = createSessions({ agent, store: target });
    expect((await second.get(paused.runId)).status).toBe(moved.status);
  });
});
