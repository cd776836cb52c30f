/**
 * Each step's tool results are recorded before the next model call, on every store (DESIGN §12,
 * issue 26 item 4), run by `describeStoreContract`: a worker that dies in the model call after a
 * tool is taken over after that tool, which does not run again, and its late result write is
 * refused; a worker whose renewals all failed while a tool ran longer than the lease still writes
 * its step, the store letting it through because nobody took the run, and finishes the turn; a
 * worker that cannot reach its store at all starts no model call after the tool.
 */
import {
  ConflictError,
  createSessions,
  defineAgent,
  defineTool,
  type SessionResult,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StoreClock, StoreFixture } from './helpers/store-fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `store` until the thaw starts; from then on its renewals (and with `writes`, its writes too) fail
 * as if the server were unreachable (a network outage, or a process frozen in the model call).
 */
function withOutage(store: SnapshotStore, thaw: { executions: string[] }, writes = false): SnapshotStore {
  const cut =
    <Args extends unknown[], Result>(call: (...args: Args) => Promise<Result>) =>
    (...args: Args) =>
      thaw.executions.length > 0 ? Promise.reject(new Error('ECONNRESET')) : call.apply(store, args);
  const cutWrites = writes
    ? { put: cut(store.put), ...(store.putParts ? { putParts: cut(store.putParts) } : {}) }
    : {};
  return Object.assign(Object.create(store) as SnapshotStore, { renew: cut(store.renew), ...cutWrites });
}

/** An approval-gated thaw taking `toolMs`, then a model that waits on `gate` and says "Done.". */
function thawAgent(toolMs: number, gate?: Promise<void>) {
  const executions: string[] = [];
  const modelCalls: string[] = [];
  const thaw = defineTool({
    name: 'thaw',
    description: 'Thaw a vial',
    input: z.object({}),
    needsApproval: true,
    execute: async (_input, ctx) => {
      executions.push(ctx.idempotencyKey);
      await sleep(toolMs);
      return 'thawed';
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] },
    async () => {
      modelCalls.push('after thaw');
      await gate;
      return 'Done.';
    },
  ]);
  const agent = defineAgent({ name: 'freezer', instructions: 'Thaw.', model, tools: [thaw] });
  return { agent, executions, modelCalls };
}

const toolMessages = (result: SessionResult) => result.messages.filter((message) => message.role === 'tool');

/** Registers the step tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeStepsContract(fixture: () => StoreFixture): void {
  describe('steps recorded before the next model call', () => {
    let store: SnapshotStore;
    let clock: StoreClock;
    beforeAll(() => {
      ({ store, clock } = fixture());
    });

    it('takes over a worker that died in the model call after a tool: the tool does not run again', async () => {
      const leaseMs = clock.leaseMs;
      let wake: () => void = () => undefined;
      const frozen = thawAgent(0, new Promise<void>((resolve) => (wake = resolve)));
      const paused = await createSessions({ agent: frozen.agent, store, leaseMs }).start('thaw one');
      const late = createSessions({ agent: frozen.agent, store: withOutage(store, frozen), leaseMs }).approve(
        paused.runId,
      );
      while (frozen.modelCalls.length === 0) await sleep(5);
      expect(frozen.executions).toHaveLength(1);

      await clock.elapse(Math.ceil((leaseMs * 4) / 3));
      const next = thawAgent(0);
      const sessions = createSessions({ agent: next.agent, store, leaseMs });
      const recovered = await sessions.retry(paused.runId);
      expect(recovered.status).toBe('completed');
      expect(next.executions).toEqual([]);
      expect(toolMessages(recovered).map((message) => message.content)).toEqual(['thawed']);

      wake();
      await expect(late).rejects.toBeInstanceOf(ConflictError);
      expect((await sessions.get(paused.runId)).status).toBe('completed');
    });

    it('writes its step when every renewal failed during a tool longer than the lease, and finishes', async () => {
      const leaseMs = 60;
      const thaw = thawAgent(leaseMs * 4);
      const { agent, executions, modelCalls } = thaw;
      const paused = await createSessions({ agent, store, leaseMs }).start('thaw one');
      const done = await createSessions({ agent, store: withOutage(store, thaw), leaseMs }).approve(
        paused.runId,
      );
      expect(done.status).toBe('completed');
      expect(executions).toHaveLength(1);
      expect(modelCalls).toEqual(['after thaw']);
      expect(toolMessages(done)).toHaveLength(1);
    });

    it('starts no model call after a tool when its store cannot be reached at all, and writes nothing', async () => {
      const leaseMs = 60;
      const thaw = thawAgent(leaseMs * 4);
      const { agent, modelCalls } = thaw;
      const paused = await createSessions({ agent, store, leaseMs }).start('thaw one');
      const approving = createSessions({ agent, store: withOutage(store, thaw, true), leaseMs }).approve(
        paused.runId,
      );
      await expect(approving).rejects.toThrow('ECONNRESET');
      expect(modelCalls).toEqual([]);
      expect((await store.get(paused.runId))?.version).toBe(paused.version + 1);
    });
  });
}
