/**
 * The store's clock (issue 26, low), run by `describeStoreContract`: reads and writes give it
 * (`now`), `listExpired('now')` asks it, and sessions judge question expiry by it, so workers whose
 * clocks are 5 minutes off either way agree with the store on what expired (as they do on leases).
 * A worker's clock is the faked system clock; the store's is its own (a server's, or a fake one).
 */
import {
  askUserQuestion,
  createSessions,
  defineAgent,
  type SnapshotStore,
  type TurnResult,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshRunId, type StoreFixture } from './helpers/store-fixtures.js';

const MINUTE = 60_000;
/** How far a worker's clock is off the store's in these tests. */
const SKEW_MS = 5 * MINUTE;

/** An agent whose question expires a minute after it is asked. */
function expiringAgent() {
  return defineAgent({
    name: 'clocked',
    instructions: 'You ask once.',
    model: scriptedModel([
      {
        toolCalls: [
          {
            name: 'AskUserQuestion',
            arguments: {
              questions: [{ question: 'Which medium?', header: 'Medium', options: ['RPMI', 'DMEM'] }],
            },
          },
        ],
      },
      'Done.',
    ]),
    tools: [askUserQuestion({ timeoutMs: MINUTE })],
  });
}

const timedOut = (result: TurnResult) =>
  result.messages.some((message) => message.role === 'tool' && message.content.includes('question_timeout'));

/** Registers the clock tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeClockContract(fixture: () => StoreFixture): void {
  describe("the store's clock", () => {
    let store: SnapshotStore;
    beforeAll(() => {
      store = fixture().store;
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is given with every read and write, in epoch ms', async () => {
      const runId = freshRunId('clock');
      const written = await store.put(runId, '{"turn":1}', { expectedVersion: null });
      const read = await store.get(runId);
      const parts = await store.getParts?.(runId);
      for (const now of [written.now, read?.now, parts?.now ?? read?.now]) {
        expect(Number.isFinite(now)).toBe(true);
      }
      expect(read!.now!).toBeGreaterThanOrEqual(written.now!);
    });

    it("lists by it with listExpired('now')", async () => {
      const probe = freshRunId('clock-probe');
      const { now } = await store.put(probe, '{}', { expectedVersion: null });
      const due = freshRunId('clock-due');
      const later = freshRunId('clock-later');
      await store.put(due, '{}', { expectedVersion: null, expiresAt: new Date(now! - 1000).toISOString() });
      await store.put(later, '{}', {
        expectedVersion: null,
        expiresAt: new Date(now! + MINUTE).toISOString(),
      });
      const listed = await store.listExpired('now');
      expect(listed).toContain(due);
      expect(listed).not.toContain(later);
    });

    it('decides question expiry for sessions: workers 5 minutes behind and ahead agree with it', async () => {
      const sessions = createSessions({ agent: expiringAgent(), store });
      vi.useFakeTimers({ toFake: ['Date'] });
      const real = Date.now();
      // Asked by a worker 5 minutes behind: the question still lasts a minute on the store's clock.
      vi.setSystemTime(real - SKEW_MS);
      const started = await sessions.start({ input: 'Pick a medium.', runId: freshRunId('clock-run') });
      const storeNow = (await store.get(started.runId))!.now!;
      const expiresAt = Date.parse(started.pendingQuestion!.expiresAt!);
      expect(expiresAt).toBeGreaterThan(storeNow);
      expect(expiresAt).toBeLessThanOrEqual(storeNow + MINUTE);

      // A sweeper and a worker 5 minutes ahead: nothing has expired on the store's clock.
      vi.setSystemTime(real + SKEW_MS);
      expect(await store.listExpired('now')).not.toContain(started.runId);
      expect((await sessions.sweep()).swept.map((run) => run.runId)).not.toContain(started.runId);
      const answered = await sessions.answer(started.runId, { answers: 'RPMI' });
      expect(answered.status).toBe('completed');
      expect(timedOut(answered)).toBe(false);
    });
  });
}
