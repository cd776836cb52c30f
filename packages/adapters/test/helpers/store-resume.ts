/**
 * Resumes through sessions for the store tests of row layout 2 (DESIGN §17): an agent that pauses on
 * an approval after any history, a store wrapper that counts the bytes each write sends, and the
 * check that a run stored whole (layout 1) resumes and is rewritten as layout 2.
 */
import {
  type Agent,
  type ChatMessage,
  createSessions,
  defineAgent,
  defineTool,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { expect } from 'vitest';
import { z } from 'zod';

/** The goal of DESIGN §17: bytes written per resume ≤ this + the new messages. */
export const WRITE_SLACK_BYTES = 2048;

/** `count` prior messages, alternating assistant and user (~200 characters each), ending with the user's. */
export function priorMessages(count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, index): ChatMessage => {
    const content = `Vial ${index} of K562 sits in rack B${index % 9}, "box" ${index % 81}. ${'Thawed at 37 °C. '.repeat(10)}`;
    return (count - index) % 2 === 1 ? { role: 'user', content } : { role: 'assistant', content };
  });
}

/**
 * An LN2 agent resumed after `prior` messages (half of them the assistant's): it asks to record a
 * thaw (approval first), then reports it. `secret` signs its snapshots.
 */
export function approvalAgent(prior: number, secret?: string): Agent {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw.',
    input: z.object({ cellLine: z.string() }),
    needsApproval: true,
    execute: async ({ cellLine }) => ({ recorded: cellLine }),
  });
  const model = scriptedModel([
    ...Array.from({ length: Math.floor(prior / 2) }, () => 'never played'),
    { toolCalls: [{ id: 'thaw', name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
    'Recorded one K562 thaw.',
  ]);
  return defineAgent({
    name: 'freezer',
    instructions: 'You record thaws.',
    model,
    tools: [recordThaw],
    ...(secret ? { snapshot: { secret } } : {}),
  });
}

/** A store that adds up the bytes each write sends (snapshot, or head and log texts). */
export function countingBytes(inner: SnapshotStore): {
  store: SnapshotStore;
  written: () => number;
  reset(): void;
} {
  let written = 0;
  const store: SnapshotStore = {
    get: (runId) => inner.get(runId),
    put: (runId, snapshot, opts) => {
      written += Buffer.byteLength(snapshot);
      return inner.put(runId, snapshot, opts);
    },
    renew: (runId, opts) => inner.renew(runId, opts),
    listExpired: (before, limit) => inner.listExpired(before, limit),
    delete: (runId) => inner.delete(runId),
  };
  if (inner.getParts && inner.putParts) {
    store.getParts = (runId) => inner.getParts!(runId);
    store.putParts = (runId, write, opts) => {
      written +=
        Buffer.byteLength(write.head) + Buffer.byteLength(write.messages) + Buffer.byteLength(write.resolved);
      return inner.putParts!(runId, write, opts);
    };
  }
  return {
    store,
    written: () => written,
    reset() {
      written = 0;
    },
  };
}

/**
 * One resume (`sessions.approve`) of a run started with `prior` messages: the bytes it wrote and the
 * bytes of the messages it added. The run is deleted afterwards.
 */
export async function measureResume(
  store: SnapshotStore,
  prior: number,
): Promise<{ written: number; newMessages: number }> {
  const counted = countingBytes(store);
  const sessions = createSessions({ agent: approvalAgent(prior), store: counted.store });
  const paused = await sessions.start(priorMessages(prior));
  expect(paused.status).toBe('needs_input');
  counted.reset();
  const done = await sessions.approve(paused.runId);
  expect(done.status).toBe('completed');
  const added = done.messages.slice(paused.messages.length);
  expect((await store.get(paused.runId))?.snapshot).toBe(done.snapshot);
  await store.delete(paused.runId);
  return { written: counted.written(), newMessages: Buffer.byteLength(JSON.stringify(added)) };
}

/**
 * Resumes a run whose row holds `snapshot` whole (layout 1, as an earlier release wrote it) and
 * checks that it completes and is stored as layout 2 afterwards, reading back as its result.
 */
export async function expectResumedAsLayout2(
  store: SnapshotStore,
  agent: Agent,
  runId: string,
): Promise<void> {
  expect(await store.getParts!(runId)).toHaveProperty('snapshot');
  const done = await createSessions({ agent, store }).approve(runId);
  expect(done.status).toBe('completed');
  expect(done.output).toBe('Recorded one K562 thaw.');
  const row = await store.getParts!(runId);
  expect(row).toHaveProperty('head');
  expect(row?.version).toBe(done.version);
  expect((await store.get(runId))?.snapshot).toBe(done.snapshot);
}
