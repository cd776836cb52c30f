/**
 * A run's state from its head alone (DESIGN §17, issue 29's item): with a store that reads a
 * layout-2 row's head (`getHead`), `sessions.getHead` reads no log, whatever the history, and says
 * what `get` says about the run's status, pending interactions and transcript size.
 */
import { describe, expect, it } from 'vitest';
import { type ChatMessage, createSessions, memoryStore, type SnapshotStore } from '../src/index.js';
import { makeAgent } from './helpers.js';

/** A store counting its reads. */
function countingReads(inner: SnapshotStore) {
  const reads = { get: 0, getParts: 0, getHead: 0 };
  const store: SnapshotStore = {
    ...inner,
    get: (runId) => {
      reads.get++;
      return inner.get(runId);
    },
    getParts: (runId) => {
      reads.getParts++;
      return inner.getParts!(runId);
    },
    getHead: (runId) => {
      reads.getHead++;
      return inner.getHead!(runId);
    },
  };
  return { store, reads };
}

const history = (count: number): ChatMessage[] =>
  Array.from(
    { length: count },
    (_, index): ChatMessage =>
      (count - index) % 2 === 1
        ? { role: 'user', content: `Question ${index}: ${'lorem ipsum '.repeat(20)}` }
        : { role: 'assistant', content: `Answer ${index}` },
  );

describe('sessions.getHead', () => {
  it('reads the head alone and agrees with get', async () => {
    const { store, reads } = countingReads(memoryStore());
    // The scripted model plays the step after the history's 250 assistant messages.
    const agent = makeAgent([
      ...Array.from({ length: 250 }, () => 'never played'),
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
      'Done.',
    ]);
    const sessions = createSessions({ agent, store });
    const paused = await sessions.start([
      ...history(500),
      { role: 'user', content: 'Thaw one vial of K562.' },
    ]);
    expect(paused.status).toBe('needs_input');
    const full = await sessions.get(paused.runId);
    reads.getParts = 0;
    const head = await sessions.getHead(paused.runId);
    expect(reads).toMatchObject({ getParts: 0, get: 0, getHead: 1 });
    expect(head).toMatchObject({
      runId: paused.runId,
      status: 'needs_input',
      needsInput: true,
      pending: full.pending,
      version: full.version,
      messageCount: full.messages.length,
    });
    expect(head.messagesLength).toBe(JSON.stringify(full.messages).length - 2);
    const done = await sessions.approve(paused.runId);
    expect(await sessions.getHead(paused.runId)).toMatchObject({ status: 'completed', output: done.output });
  });

  it('hides another principal’s run and says RUN_NOT_FOUND for none', async () => {
    const sessions = createSessions({ agent: makeAgent(['Hi.']), store: memoryStore() });
    const started = await sessions.start('Hello', { principal: 'ada' });
    await expect(sessions.getHead(started.runId, { principal: 'eve' })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
    await expect(sessions.getHead('run_missing')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect((await sessions.getHead(started.runId, { principal: 'ada' })).status).toBe('completed');
  });

  it('reads the whole run from a store without getHead', async () => {
    const { getHead: _getHead, ...plain } = memoryStore();
    const sessions = createSessions({ agent: makeAgent(['Hi.']), store: plain });
    const started = await sessions.start('Hello');
    expect(await sessions.getHead(started.runId)).toMatchObject({ status: 'completed', messageCount: 2 });
  });
});
