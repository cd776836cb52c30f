/**
 * Sessions over each store in row layout 2 (DESIGN §17), run by `describeStoreContract`: the bytes a
 * resume writes stay within 2 KiB of the messages it adds, whatever the history; a run stored whole
 * (layout 1, as the previous release's sessions wrote it with `put`) resumes and is rewritten as
 * layout 2; a signed run whose stored log was edited is refused with SNAPSHOT_TAMPERED.
 */
import { createSessions, runTurn, type SnapshotError, type SnapshotStore } from '@turnkit/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshRunId, type StoreFixture } from './helpers/store-fixtures.js';
import {
  approvalAgent,
  expectResumedAsLayout2,
  measureResume,
  priorMessages,
  WRITE_SLACK_BYTES,
} from './helpers/store-resume.js';

const SECRET = 'store-contract-secret';

/** Registers the sessions tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeSessionsContract(fixture: () => StoreFixture): void {
  describe('sessions in row layout 2', () => {
    let store: SnapshotStore;
    beforeAll(() => {
      store = fixture().store;
    });

    it.each([10, 1000, 5000])(
      'writes per resume at most 2 KiB plus the new messages, at %i prior messages',
      async (prior) => {
        const { written, newMessages } = await measureResume(store, prior);
        expect(written).toBeLessThanOrEqual(WRITE_SLACK_BYTES + newMessages);
      },
    );

    it('resumes a run stored whole by put (layout 1) and rewrites it as layout 2', async () => {
      const agent = approvalAgent(10);
      const paused = await runTurn(agent, { input: priorMessages(10), runId: freshRunId('whole') });
      await store.put(paused.runId, paused.snapshot, { expectedVersion: null });
      await expectResumedAsLayout2(store, agent, paused.runId);
    });

    it('refuses a signed run whose stored log entry was edited, with SNAPSHOT_TAMPERED', async () => {
      const sessions = createSessions({ agent: approvalAgent(10, SECRET), store });
      const paused = await sessions.start(priorMessages(10));
      const row = await store.getParts!(paused.runId);
      if (!row || !('head' in row)) throw new Error('expected a layout-2 row');
      expect(row.messages).toContain('rack B3');
      await store.putParts!(
        paused.runId,
        {
          mode: 'rewrite',
          head: row.head,
          messages: row.messages.replace('rack B3', 'rack B4'),
          resolved: row.resolved,
        },
        { expectedVersion: row.version },
      );
      const error = await sessions.approve(paused.runId).catch((caught: unknown) => caught);
      expect((error as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
      const read = await sessions.get(paused.runId).catch((caught: unknown) => caught);
      expect((read as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
    });
  });
}
