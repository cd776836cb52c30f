/**
 * Long runs over each store (DESIGN §22, issue 33), run by `describeStoreContract`: a write tells
 * the store where the window starts (`windowAt`), and `getParts(runId, { transcript: 'window' })`
 * returns the transcript log from the chunk holding it on, skipping the older chunks, with every
 * resolved record. Through sessions, a compacted run resumes from the partial read exactly as from
 * the whole one; the bytes read stay bounded as the history grows; an edit inside the window is
 * SNAPSHOT_TAMPERED, one before it is not read by a resume.
 */
import {
  type Agent,
  compaction,
  createSessions,
  defineAgent,
  type SnapshotError,
  type SnapshotStore,
} from '@turnkit/core';
import type { PartsWrite, StoredParts } from '@turnkit/core/store';
import { scriptedModel } from '@turnkit/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshRunId, partsHead, type StoreFixture } from './helpers/store-fixtures.js';

const SECRET = 'store-window-secret';

type PartsStore = SnapshotStore & Required<Pick<SnapshotStore, 'getParts' | 'putParts'>>;

/** A user message of ~300 characters, numbered so each one is told apart. */
const said = (turn: number) =>
  `Turn ${turn}: vial ${turn} of K562 moved to rack B${turn % 9}. ${'Logged. '.repeat(32)}`;

/** A signed chat agent whose history is compacted past ~2 500 characters, keeping the last 2 messages. */
function chatAgent(): Agent {
  const reply = (request: { messages: readonly { role: string; content?: unknown }[] }) => {
    const last = request.messages.at(-1);
    return `Noted ${String(last?.content ?? '').slice(0, 12)}`;
  };
  return defineAgent({
    name: 'ln2',
    instructions: 'You note vial moves.',
    model: scriptedModel(Array.from({ length: 500 }, () => reply)),
    snapshot: { secret: SECRET },
    history: compaction({
      maxTokens: 650,
      keepRecent: 2,
      compact: (messages) => `Summary of ${messages.length} messages.`,
    }),
  });
}

/** The store read in full only: what a store without the partial read does. */
function fullReads(inner: PartsStore): SnapshotStore {
  return {
    get: (runId) => inner.get(runId),
    getParts: (runId) => inner.getParts(runId),
    putParts: (runId, write, opts) => inner.putParts(runId, write, opts),
    put: (runId, snapshot, opts) => inner.put(runId, snapshot, opts),
    renew: (runId, opts) => inner.renew(runId, opts),
    listExpired: (before, limit) => inner.listExpired(before, limit),
    delete: (runId) => inner.delete(runId),
  };
}

/** The store with the bytes of every `getParts` counted (head, both logs, UTF-8). */
function countingReads(inner: PartsStore): { store: SnapshotStore; read: () => number; reset(): void } {
  let read = 0;
  const store: SnapshotStore = {
    ...fullReads(inner),
    async getParts(runId, options) {
      const row = await inner.getParts(runId, options);
      if (row && 'head' in row) {
        read +=
          Buffer.byteLength(row.head) + Buffer.byteLength(row.messages) + Buffer.byteLength(row.resolved);
      } else if (row) read += Buffer.byteLength(row.snapshot);
      return row;
    },
  };
  return {
    store,
    read: () => read,
    reset() {
      read = 0;
    },
  };
}

/** A run of `turns` chat turns after the start, through `store`; returns its id. */
async function longRun(store: SnapshotStore, turns: number): Promise<string> {
  const sessions = createSessions({ agent: chatAgent(), store });
  const started = await sessions.start(said(0));
  for (let turn = 1; turn <= turns; turn++) await sessions.send(started.runId, said(turn));
  return started.runId;
}

/** DESIGN §22's bound on what one resume reads. */
const RESUME_READ_BYTES = 256 * 1024;
/** Messages of the imported conversation: about 2.4 MB of JSON, the bound nine times over. */
const IMPORTED = 20_000;

/** Message `index` of the imported conversation (~100 characters; quotes and a newline now and then). */
function imported(index: number): { role: 'user' | 'assistant'; content: string } {
  const quoted = index % 7 === 0 ? ' "as logged"\n' : '';
  return {
    role: (IMPORTED - index) % 2 === 1 ? 'user' : 'assistant',
    content: `Import ${index}: vial ${index} of K562 from rack B${index % 9}.${quoted} Logged ${'ok '.repeat(20)}`,
  };
}

/** A signed agent that compacts its history past 8 000 tokens (the window stays about 32 kB). */
function importingAgent(): Agent {
  return defineAgent({
    name: 'importer',
    instructions: 'You keep the LN2 log.',
    model: scriptedModel(Array.from({ length: 20 }, () => 'Noted.')),
    snapshot: { secret: SECRET },
    history: compaction({
      maxTokens: 8_000,
      keepRecent: 4,
      compact: (messages) => `Summary of ${messages.length} imported messages.`,
    }),
  });
}

/** The layout-2 row as stored, read whole. */
async function wholeRow(store: PartsStore, runId: string): Promise<StoredParts> {
  const row = await store.getParts(runId);
  if (!row || !('head' in row)) throw new Error('expected a layout-2 row');
  return row;
}

/** Registers the long-run tests; `fixture` is read once the enclosing suite has set the store up. */
export function describeWindowContract(fixture: () => StoreFixture): void {
  describe('long runs: partial reads from the window (DESIGN §22)', () => {
    let store: PartsStore;
    beforeAll(() => {
      store = fixture().store as PartsStore;
    });

    it('returns the transcript log from the chunk holding windowAt, every resolved record, and all without the option', async () => {
      const runId = freshRunId('window');
      const write = (label: string, messages: string, resolved: string, windowAt?: number): PartsWrite => ({
        head: partsHead(label),
        mode: 'append',
        messages,
        resolved,
        ...(windowAt === undefined ? {} : { windowAt }),
      });
      await store.putParts(
        runId,
        { ...write('one', '1,2', '"a"'), mode: 'rewrite' },
        { expectedVersion: null },
      );
      await store.putParts(runId, write('two', '33,44', ''), { expectedVersion: 1 });
      await store.putParts(runId, write('three', '', '"b"'), { expectedVersion: 2 });
      // The log is now `1,2,33,44,5`: the window starts at `44` (offset 7), inside the second chunk.
      await store.putParts(runId, write('four', '5', '', 7), { expectedVersion: 3 });
      const whole = '1,2,33,44,5';
      expect(await store.getParts(runId)).toMatchObject({ messages: whole, resolved: '"a","b"', version: 4 });
      const tail = await store.getParts(runId, { transcript: 'window' });
      if (!tail || !('head' in tail)) throw new Error('expected a layout-2 row');
      expect(tail.head).toBe(partsHead('four'));
      expect(tail.resolved).toBe('"a","b"');
      // The first chunk (`1,2`) is skipped; the tail starts at or before the window, at an entry.
      const at = tail.messagesAt ?? 0;
      expect(at).toBeGreaterThanOrEqual(4);
      expect(at).toBeLessThanOrEqual(7);
      expect(tail.messages).toBe(whole.slice(at));
      // A rewrite starts the log anew: no window, the whole log again.
      await store.putParts(runId, { ...write('five', '9', ''), mode: 'rewrite' }, { expectedVersion: 4 });
      const rewritten = await store.getParts(runId, { transcript: 'window' });
      expect(rewritten).toMatchObject({ messages: '9', resolved: '', version: 5 });
      expect((rewritten as StoredParts).messagesAt ?? 0).toBe(0);
    });

    it('keeps a write with cuts as several chunks: the window read starts at the cut before windowAt, the full read is whole (issue 43)', async () => {
      const runId = freshRunId('cuts');
      const text = '1,22,333,4444';
      // Chunks `1` (0), `22` (2), `333` (5), `4444` (9); the window starts inside `333`.
      await store.putParts(
        runId,
        {
          head: partsHead('one'),
          mode: 'rewrite',
          messages: text,
          cuts: [1, 4, 8],
          resolved: '"a"',
          windowAt: 6,
        },
        { expectedVersion: null },
      );
      expect(await store.getParts(runId)).toMatchObject({ messages: text, resolved: '"a"', version: 1 });
      const tail = await store.getParts(runId, { transcript: 'window' });
      expect(tail).toMatchObject({ messages: '333,4444', messagesAt: 5, resolved: '"a"' });
      // An append after it: its offsets follow the cut chunks.
      await store.putParts(
        runId,
        {
          head: partsHead('two'),
          mode: 'append',
          messages: '55,66',
          cuts: [2],
          resolved: '"b"',
          windowAt: 17,
        },
        { expectedVersion: 1 },
      );
      expect(await store.getParts(runId)).toMatchObject({ messages: `${text},55,66`, resolved: '"a","b"' });
      expect(await store.getParts(runId, { transcript: 'window' })).toMatchObject({
        messages: '66',
        messagesAt: 17,
        resolved: '"a","b"',
      });
      expect(await store.getHead!(runId)).toMatchObject({ messagesLength: `${text},55,66`.length });
    });

    it('resumes a compacted run from the partial read exactly as from the whole log, and keeps every message', async () => {
      const runId = await longRun(store, 24);
      const partial = createSessions({ agent: chatAgent(), store });
      const whole = createSessions({ agent: chatAgent(), store: fullReads(store) });
      const [fromWindow, fromWhole] = [await partial.get(runId), await whole.get(runId)];
      expect(fromWindow.snapshot).toBe(fromWhole.snapshot);
      expect(fromWindow.messages.length).toBeLessThan(12);
      const next = await partial.send(runId, said(25));
      expect(next.status).toBe('completed');
      expect((await whole.get(runId)).snapshot).toBe(next.snapshot);
      const full = await partial.get(runId, { transcript: 'full' });
      const users = full.messages
        .filter((message) => message.role === 'user')
        .map((message) => message.content);
      expect(users).toEqual(Array.from({ length: 26 }, (_, turn) => said(turn)));
    });

    it('reads a bounded number of bytes per resume as the history grows', async () => {
      const counted = countingReads(store);
      const readOneResume = async (turns: number) => {
        const runId = await longRun(store, turns);
        counted.reset();
        const sessions = createSessions({ agent: chatAgent(), store: counted.store });
        expect((await sessions.send(runId, said(turns + 1))).status).toBe('completed');
        const logBytes = Buffer.byteLength((await wholeRow(store, runId)).messages);
        return { read: counted.read(), logBytes };
      };
      const short = await readOneResume(12);
      const long = await readOneResume(60);
      expect(long.logBytes).toBeGreaterThan(4 * short.logBytes);
      // One resume reads the head, the window and at most the chunk before it: not the history.
      expect(long.read).toBeLessThan(long.logBytes / 4);
      expect(long.read).toBeLessThanOrEqual(short.read + 2048);
    });

    it('resumes a run started with a long imported history reading at most 256 KiB, and keeps the whole transcript in order', async () => {
      const history = Array.from({ length: IMPORTED }, (_, index) => imported(index));
      const sessions = createSessions({ agent: importingAgent(), store });
      // One call writes the whole import; its first turn compacts it (the window starts near its end).
      const started = await sessions.start(history);
      expect(started.status).toBe('completed');
      const logBytes = Buffer.byteLength((await wholeRow(store, started.runId)).messages);
      expect(logBytes).toBeGreaterThan(8 * RESUME_READ_BYTES);
      const counted = countingReads(store);
      const resumed = createSessions({ agent: importingAgent(), store: counted.store });
      const next = await resumed.send(started.runId, 'One more vial of K562, rack B3.');
      expect(next.status).toBe('completed');
      expect(counted.read()).toBeLessThanOrEqual(RESUME_READ_BYTES);
      // The whole transcript: every imported message, then the turns after, in order.
      const full = await resumed.get(started.runId, { transcript: 'full' });
      expect(full.messages.slice(0, IMPORTED)).toEqual(history);
      expect(full.messages.slice(IMPORTED).map((message) => message.content)).toEqual([
        'Noted.',
        'One more vial of K562, rack B3.',
        'Noted.',
      ]);
    });

    it('refuses an edit inside the window with SNAPSHOT_TAMPERED; an edit before it is not read by a resume, and is caught by a full read', async () => {
      const runId = await longRun(store, 16);
      const row = await wholeRow(store, runId);
      const windowAt = JSON.parse(row.head.slice(0, row.head.indexOf('\n'))).window.at as number;
      // An edit of the stored log (same length): applied where the read returned it, as a row
      // edited in the store would be (a direct edit would also move the row version, refused apart).
      const edited = (at: number, from: string, to: string): SnapshotStore => ({
        ...fullReads(store),
        async getParts(id, options) {
          const read = await store.getParts(id, options);
          if (!read || !('head' in read)) return read;
          const start = read.messagesAt ?? 0;
          const offset = at - start;
          if (offset < 0) return read;
          expect(read.messages.slice(offset, offset + from.length)).toBe(from);
          const messages = read.messages.slice(0, offset) + to + read.messages.slice(offset + from.length);
          return { ...read, messages };
        },
      });
      const before = row.messages.indexOf('Turn 1:');
      expect(before).toBeLessThan(windowAt);
      const untouched = await createSessions({ agent: chatAgent(), store }).get(runId);
      const resumed = await createSessions({
        agent: chatAgent(),
        store: edited(before, 'Turn 1:', 'Turn X:'),
      }).get(runId);
      expect(resumed.snapshot).toBe(untouched.snapshot);
      // The whole log is checked against the head's MAC chain: the edit before the window is caught.
      const full = await createSessions({ agent: chatAgent(), store: edited(before, 'Turn 1:', 'Turn X:') })
        .get(runId, { transcript: 'full' })
        .catch((caught: unknown) => caught);
      expect((full as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
      expect(
        (await createSessions({ agent: chatAgent(), store }).get(runId, { transcript: 'full' })).messages[2]
          ?.content,
      ).toBe(said(1));
      const inside = row.messages.lastIndexOf('K562');
      expect(inside).toBeGreaterThan(windowAt);
      const error = await createSessions({ agent: chatAgent(), store: edited(inside, 'K562', 'K563') })
        .get(runId)
        .catch((caught: unknown) => caught);
      expect((error as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
    });
  });
}
