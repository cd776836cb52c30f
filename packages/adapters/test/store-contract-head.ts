/**
 * `getHead` (DESIGN §17), run by `describeStoreContract`: a layout-2 row's head with the length of
 * its transcript log (at least its characters), without the logs; a layout-1 row whole; none null.
 */
import { createSessions, type SnapshotStore } from '@turnkit/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshRunId, type StoreFixture } from './helpers/store-fixtures.js';
import { approvalAgent, priorMessages } from './helpers/store-resume.js';

/** Registers the head tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeHeadContract(fixture: () => StoreFixture): void {
  describe('getHead', () => {
    let store: SnapshotStore;
    beforeAll(() => {
      store = fixture().store;
    });

    it('reads a layout-2 head and its transcript length; a whole row whole; none as null', async () => {
      expect(await store.getHead!(freshRunId('no-head'))).toBeNull();
      const agent = approvalAgent(20);
      const paused = await createSessions({ agent, store }).start(priorMessages(20));
      const parts = await store.getParts!(paused.runId);
      const head = await store.getHead!(paused.runId);
      if (!parts || !('head' in parts) || !head || !('head' in head)) throw new Error('expected layout 2');
      expect(head).toMatchObject({ head: parts.head, version: parts.version, lease: parts.lease });
      expect(head.messagesLength).toBeGreaterThanOrEqual(parts.messages.length);
      expect(head.messagesLength).toBeLessThanOrEqual(Buffer.byteLength(parts.messages));

      const whole = freshRunId('whole-head');
      await store.put(whole, '{"whole":true}', { expectedVersion: null });
      expect(await store.getHead!(whole)).toMatchObject({ snapshot: '{"whole":true}', version: 1 });
    });
  });
}
