/**
 * Row layout 2 (DESIGN §17) in core: a snapshot split into a head and append-only logs assembles
 * back to exactly the string a snapshot is; sessions over a store with parts write per resume only
 * the head and the new entries, whatever the history; signed runs stay tamper-evident; rows written
 * whole (layout 1) are read and rewritten as layout 2; and a session result builds its snapshot
 * only when it is read.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  answerQuestion,
  type ChatMessage,
  createSessions,
  memoryStore,
  parseSnapshot,
  runTurn,
  type SnapshotError,
  type SnapshotStore,
} from '../src/index.js';
import { encodeParts } from '../src/snapshot/index.js';
import type { PartsWrite } from '../src/store.js';
import { FIXTURE_NOW, FIXTURE_SECRET, HEADER, inventoryAgent, LABELS } from './fixtures/inventory-agent.js';
import { ask, cellLineQuestion, makeAgent } from './helpers.js';

const SECRET = 'row-layout-test-secret';
/** The goal of DESIGN §17: bytes written per resume ≤ this + the new messages. */
const SLACK_BYTES = 2048;

/** `count` prior messages, alternating assistant and user (~200 characters each), ending with the user's. */
function history(count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, index): ChatMessage => {
    const text = `Message ${index}: thaw K562 from rack B${index % 9}, "quoted" — ${'lorem ipsum '.repeat(14)}`;
    return (count - index) % 2 === 1 ? { role: 'user', content: text } : { role: 'assistant', content: text };
  });
}

/** A memory store whose writes are recorded: which call, which mode, how many bytes. */
function recordingStore(inner: SnapshotStore = memoryStore()) {
  const writes: { call: 'put' | 'putParts'; mode?: PartsWrite['mode']; bytes: number; head: number }[] = [];
  const store: SnapshotStore = {
    ...inner,
    put: (runId, snapshot, opts) => {
      writes.push({ call: 'put', bytes: Buffer.byteLength(snapshot), head: 0 });
      return inner.put(runId, snapshot, opts);
    },
    putParts: (runId, write, opts) => {
      const head = Buffer.byteLength(write.head);
      const bytes = head + Buffer.byteLength(write.messages) + Buffer.byteLength(write.resolved);
      writes.push({ call: 'putParts', mode: write.mode, bytes, head });
      return inner.putParts!(runId, write, opts);
    },
  };
  return { store, writes, inner };
}

/** The same store without row layout 2, as a user-written store (or a wrapper) would be. */
function withoutParts(store: SnapshotStore): SnapshotStore {
  const { getParts: _getParts, putParts: _putParts, ...rest } = store;
  return rest;
}

const pausingAgent = (turns: number, config = {}) =>
  makeAgent(
    [...Array.from({ length: turns }, () => 'never'), { toolCalls: [ask([cellLineQuestion])] }, 'Thawed.'],
    config,
  );

const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"messages":[', '],"step":', '"resolved":[]', '{"layout":2}\n', '\u2028', '\ud800'),
);

describe('row layout 2: the parts of a snapshot', () => {
  it('assemble to exactly the snapshot string, plain and signed (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { maxLength: 6 }), hostile, async (texts, userText) => {
        const input = [
          ...texts.map(
            (content, index): ChatMessage => ({ role: index % 2 ? 'user' : 'assistant', content }),
          ),
          { role: 'user' as const, content: userText },
        ];
        const turns = input.filter((message) => message.role === 'assistant').length;
        for (const secret of [undefined, SECRET]) {
          const agent = pausingAgent(turns, secret ? { snapshot: { secret } } : {});
          const paused = await runTurn(agent, { input, context: { note: userText } });
          const done = await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' });
          for (const snapshot of [paused.snapshot, done.snapshot]) {
            const decoded = parseSnapshot(snapshot, secret ? { secret } : {});
            expect(encodeParts(decoded, secret ? { secret } : {})!.snapshot()).toBe(snapshot);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('are not used for an agent that encrypts', async () => {
    const agent = pausingAgent(0, { snapshot: { secret: SECRET, encrypt: true } });
    const paused = await runTurn(agent, { input: 'Thaw one vial' });
    const decoded = parseSnapshot(paused.snapshot, { secret: SECRET });
    expect(encodeParts(decoded, { secret: SECRET, encrypt: true })).toBeUndefined();
  });
});

describe('row layout 2: sessions', () => {
  it.each([10, 1000, 5000])(
    'write per resume at most 2 KiB plus the new messages, at %i prior messages',
    async (count) => {
      const { store, writes } = recordingStore();
      const sessions = createSessions({ agent: pausingAgent(count / 2), store });
      const paused = await sessions.start(history(count));
      expect(paused.status).toBe('needs_input');
      writes.length = 0;
      const done = await sessions.answer(paused.runId, { answers: 'K562-dTAG' });
      expect(done.status).toBe('completed');
      const added = done.messages.slice(paused.messages.length);
      const written = writes.reduce((sum, write) => sum + write.bytes, 0);
      expect(writes.map((write) => `${write.call}:${write.mode}`)).toEqual([
        'putParts:append',
        'putParts:append',
      ]);
      expect(written).toBeLessThanOrEqual(SLACK_BYTES + Buffer.byteLength(JSON.stringify(added)));
      // What was appended reads back as the snapshot a client-held run would have.
      expect((await store.get(paused.runId))!.snapshot).toBe(done.snapshot);
      expect(parseSnapshot(done.snapshot).state.context.messages).toEqual(done.messages);
    },
  );

  it('keeps a small head through many resolved interactions', async () => {
    const rounds = 60;
    const agent = makeAgent([
      ...Array.from({ length: rounds }, () => ({ toolCalls: [ask([cellLineQuestion])] })),
      'Done.',
    ]);
    const { store, writes } = recordingStore();
    const sessions = createSessions({ agent, store });
    let result = await sessions.start('Thaw vials');
    for (let round = 0; round < rounds; round++) {
      result = await sessions.answer(result.runId, { answers: 'K562-dTAG' });
    }
    expect(result.status).toBe('completed');
    const stored = await store.getParts!(result.runId);
    expect(stored && 'head' in stored).toBe(true);
    const parts = stored as Exclude<typeof stored, { snapshot: string } | null>;
    expect(parseSnapshot(await storedSnapshot(store, result.runId)).state.context.resolved).toHaveLength(
      rounds,
    );
    // The records live in their log: the head holds none of them, and stays the same size.
    expect(parts.head).not.toContain('"resolution"');
    expect(Buffer.byteLength(parts.head)).toBeLessThan(1024);
    // Only its counters grow (turn, seq, interaction ids): a few digits, not a record per answer.
    const heads = writes.map((write) => write.head);
    expect(Math.max(...heads.slice(-10))).toBeLessThanOrEqual(Math.max(...heads.slice(2, 12)) + 32);
  });

  it('read a row stored whole (layout 1) and rewrite it as layout 2 on its next write', async () => {
    const agent = inventoryAgent({ secret: FIXTURE_SECRET });
    const { store, writes, inner } = recordingStore();
    // A row as the previous release wrote it: the signed v2 fixture, put whole.
    const fixture = readFileSync(
      new URL('./fixtures/snapshots/v2-signed-paused-question.txt', import.meta.url),
      'utf8',
    );
    const runId = parseSnapshot(fixture, { secret: FIXTURE_SECRET }).runId;
    await inner.put(runId, fixture, { expectedVersion: null });
    const sessions = createSessions({ agent, store });
    expect((await sessions.get(runId)).snapshot).toBe(fixture);

    const done = await sessions.answer(runId, { answers: { [HEADER]: LABELS[0] } }, { now: FIXTURE_NOW });
    expect(done.status).toBe('completed');
    // The claim rewrites it; the step's results, the started marker of the next tool batch (with
    // the model's message that made it, DESIGN §21) and the final answer are appended.
    expect(writes.map((write) => `${write.call}:${write.mode}`)).toEqual([
      'putParts:rewrite',
      'putParts:append',
      'putParts:append',
      'putParts:append',
    ]);
    expect('head' in (await store.getParts!(runId))!).toBe(true);
    const stored = await storedSnapshot(store, runId);
    expect(stored).toBe(done.snapshot);
    expect(parseSnapshot(stored, { secret: FIXTURE_SECRET }).state.value).toBe('completed');
  });

  it('rewrite the logs when a migration changed the run', async () => {
    const { store, writes } = recordingStore();
    const first = createSessions({ agent: pausingAgent(0), store });
    const paused = await first.start('Thaw one vial');
    const migrated = pausingAgent(0, { version: '2', migrate: (decoded: unknown) => decoded });
    writes.length = 0;
    const done = await createSessions({ agent: migrated, store }).answer(paused.runId, {
      answers: 'K562-dTAG',
    });
    expect(done.status).toBe('completed');
    expect(writes.map((write) => write.mode)).toEqual(['rewrite', 'append']);
    expect(await storedSnapshot(store, paused.runId)).toBe(done.snapshot);
  });

  it('keep a signed run tamper-evident: an edited log entry is SNAPSHOT_TAMPERED', async () => {
    const agent = pausingAgent(0, { snapshot: { secret: SECRET } });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const paused = await sessions.start('Thaw one K562 vial');
    // What the store returns is a normal signed snapshot: the stateless API resumes it too.
    const whole = await storedSnapshot(store, paused.runId);
    expect(whole).toBe(paused.snapshot);
    expect((await answerQuestion(agent, whole, { answers: 'K562-dTAG' })).status).toBe('completed');

    const row = await store.getParts!(paused.runId);
    if (!row || !('head' in row)) throw new Error('expected a layout-2 row');
    await store.putParts!(
      paused.runId,
      {
        mode: 'rewrite',
        head: row.head,
        messages: row.messages.replace('K562', 'HeLa'),
        resolved: row.resolved,
      },
      { expectedVersion: row.version },
    );
    const error = await sessions
      .answer(paused.runId, { answers: 'K562-dTAG' })
      .catch((caught: unknown) => caught);
    expect((error as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
    expect(() => parseSnapshot(whole.replace('K562', 'HeLa'), { secret: SECRET })).toThrow();
  });

  it('refuse logs that do not match their head with SNAPSHOT_INVALID', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: pausingAgent(0), store });
    const paused = await sessions.start('Thaw one K562 vial');
    const row = await store.getParts!(paused.runId);
    if (!row || !('head' in row)) throw new Error('expected a layout-2 row');
    const lost = row.messages.slice(0, row.messages.indexOf(',{"role":"assistant"'));
    await store.putParts!(
      paused.runId,
      { mode: 'rewrite', head: row.head, messages: lost, resolved: row.resolved },
      { expectedVersion: row.version },
    );
    const error = await sessions.get(paused.runId).catch((caught: unknown) => caught);
    expect((error as SnapshotError).code).toBe('SNAPSHOT_INVALID');
    await store.putParts!(
      paused.runId,
      { mode: 'rewrite', head: `x${row.head}`, messages: row.messages, resolved: row.resolved },
      { expectedVersion: row.version + 1 },
    );
    expect(((await store.get(paused.runId).catch((caught: unknown) => caught)) as SnapshotError).code).toBe(
      'SNAPSHOT_INVALID',
    );
  });

  it('build the result snapshot when it is first read, keep it, and include it when spread or serialized', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: pausingAgent(0, { snapshot: { secret: SECRET } }), store });
    const paused = await sessions.start('Thaw one K562 vial');
    const done = await sessions.answer(paused.runId, { answers: 'K562-dTAG' });
    expect(typeof Object.getOwnPropertyDescriptor(done, 'snapshot')?.get).toBe('function');
    const first = done.snapshot;
    expect(first).toBe(await storedSnapshot(store, paused.runId));
    expect(Object.getOwnPropertyDescriptor(done, 'snapshot')).toMatchObject({
      value: first,
      enumerable: true,
    });
    expect(done.snapshot).toBe(first);
    expect({ ...done }.snapshot).toBe(first);
    expect((JSON.parse(JSON.stringify(done)) as { snapshot: string }).snapshot).toBe(first);
    expect(Object.keys(done)).toEqual([
      'runId',
      'status',
      'needsInput',
      'pendingQuestion',
      'pending',
      'output',
      'snapshot',
      'messages',
      'events',
      'usage',
      'spend',
      'error',
      'activeAgent',
      'version',
    ]);
    const lazy = await sessions.get(paused.runId);
    lazy.snapshot = 'replaced';
    expect(lazy.snapshot).toBe('replaced');
  });

  it('work with a store without parts, and share rows with one that has them', async () => {
    const { store, writes } = recordingStore();
    const plain = createSessions({ agent: pausingAgent(0), store: withoutParts(store) });
    const parts = createSessions({ agent: pausingAgent(0), store });
    const paused = await parts.start('Thaw one K562 vial');
    // A worker whose store has no parts reads the layout-2 row whole, and writes it whole.
    const read = await plain.get(paused.runId);
    expect(read.snapshot).toBe(paused.snapshot);
    const sent = await plain.send(paused.runId, 'Actually, thaw HeLa');
    expect(writes.at(-1)?.call).toBe('put');
    expect(await storedSnapshot(store, paused.runId)).toBe(sent.snapshot);
    // And the next worker with parts rewrites it as layout 2.
    writes.length = 0;
    const again = await parts.send(paused.runId, 'And K562');
    expect(writes.map((write) => write.mode)).toEqual(['rewrite', 'append']);
    expect(await storedSnapshot(store, paused.runId)).toBe(again.snapshot);
  });

  it('keep an agent that encrypts in layout 1', async () => {
    const { store, writes } = recordingStore();
    const sessions = createSessions({
      agent: pausingAgent(0, { snapshot: { secret: SECRET, encrypt: true } }),
      store,
    });
    const paused = await sessions.start('Thaw one K562 vial');
    const done = await sessions.answer(paused.runId, { answers: 'K562-dTAG' });
    expect(done.status).toBe('completed');
    expect(new Set(writes.map((write) => write.call))).toEqual(new Set(['put']));
    expect(await storedSnapshot(store, paused.runId)).toBe(done.snapshot);
  });
});

async function storedSnapshot(store: SnapshotStore, runId: string): Promise<string> {
  const row = await store.get(runId);
  if (!row) throw new Error(`run ${runId} is not stored`);
  return row.snapshot;
}
