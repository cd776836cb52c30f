/**
 * Long runs in store mode (DESIGN §22, issue 33): a compaction never loses history from the store.
 * Row layout 2 appends to the transcript log after a compaction, the head records where the window
 * starts, loading builds the window (summary + log from there), `sessions.get(runId, { transcript:
 * 'full' })` returns every message kept, and tampering with the window is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatMessage,
  compaction,
  createSessions,
  defineAgent,
  defineTool,
  type ModelAdapter,
  type ModelRequest,
  memoryStore,
  parseSnapshot,
  type SnapshotStore,
  type ToolMessage,
  TurnkitError,
} from '../src/index.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { recordingStore } from './helpers.js';

const SECRET = 'history-store-secret';

const noteTool = defineTool({
  name: 'note',
  description: 'Writes a note',
  input: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ saved: text }),
});

const filler = (label: string) => `${label} ${'lorem ipsum '.repeat(20)}`;

/** A model that calls `note` until the last user message's `notes:N` has N results, then answers. */
function noteTaker(seen: ModelRequest[]): ModelAdapter {
  let calls = 0;
  const step: ScriptedStep = (request) => {
    const user = [...request.messages].reverse().find((message) => message.role === 'user');
    const wanted = Number(/notes:(\d+)/.exec(user?.content ?? '')?.[1] ?? 0);
    const after = request.messages.slice(request.messages.lastIndexOf(user!));
    const done = after.filter((message) => message.role === 'tool').length;
    if (done >= wanted) return `done ${done}`;
    calls++;
    return {
      toolCalls: [
        { id: `n${calls}-${request.messages.length}`, name: 'note', arguments: { text: filler('n') } },
      ],
    };
  };
  const inner = scriptedModel(Array.from({ length: 400 }, () => step));
  return {
    name: inner.name,
    generate(request) {
      seen.push(request);
      return inner.generate(request);
    },
  };
}

/** An agent whose compactions are recorded: the messages each one removed. */
function compactingAgent(seen: ModelRequest[], removed: ChatMessage[][]) {
  return defineAgent({
    name: 'desk',
    instructions: 'You keep notes.',
    model: noteTaker(seen),
    tools: [noteTool],
    snapshot: { secret: SECRET },
    history: compaction({
      maxTokens: 700,
      keepRecent: 3,
      compact: (messages) => {
        removed.push(messages);
        return `Summary ${removed.length} of ${messages.length} messages`;
      },
    }),
  });
}

/** Every tool call has exactly one result, placed after it. */
function expectPaired(messages: readonly ChatMessage[]): void {
  const results = new Map<string, number>();
  const calls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) calls.add(call.id);
    if (message.role === 'tool') {
      const id = (message as ToolMessage).tool_call_id;
      expect(calls.has(id), `result ${id} after its call`).toBe(true);
      results.set(id, (results.get(id) ?? 0) + 1);
    }
  }
  for (const id of calls) expect(results.get(id), `call ${id}`).toBe(1);
}

const isSummary = (message: ChatMessage) =>
  message.role === 'user' && /^Summary \d+ of/.test(message.content ?? '');

/**
 * Plays a long run over `store` (two sessions objects: a resume in a fresh process), checking what
 * DESIGN §22 promises. Shared with the server stores' test in the adapters package.
 */
async function longRun(store: SnapshotStore) {
  const recorded = recordingStore(store);
  const seen: ModelRequest[] = [];
  const removed: ChatMessage[][] = [];
  const sessions = createSessions({ agent: compactingAgent(seen, removed), store: recorded.store });
  const first = await sessions.start('notes:6');
  expect(first.status).toBe('completed');
  let last = first;
  for (const turn of ['notes:3', 'notes:4']) {
    last = await sessions.send(first.runId, turn);
    expect(last.status).toBe('completed');
  }
  expect(removed.length).toBeGreaterThanOrEqual(2);
  // A compaction never rewrites the transcript log: every write after the first appends.
  expect(recorded.writes.slice(1).every((write) => write.mode === 'append')).toBe(true);

  // A fresh process (new agent object, new sessions) resumes from the store alone.
  const fresh = createSessions({ agent: compactingAgent(seen, removed), store: recorded.store });
  last = await fresh.send(first.runId, 'notes:2');
  expect(last.status).toBe('completed');
  expectPaired(last.messages);

  // Every message ever written: those the compactions removed (summaries aside), then the window's.
  const everything = [
    ...removed.flat().filter((message) => !isSummary(message)),
    ...last.messages.filter((message) => !isSummary(message)),
  ];
  const full = await fresh.get(first.runId, { transcript: 'full' });
  expect(full.messages).toEqual(everything);
  expect(full.messages.some(isSummary)).toBe(false);
  expect(
    full.messages.filter((message) => message.role === 'user' && /^notes:/.test(message.content)),
  ).toEqual([
    { role: 'user', content: 'notes:6' },
    { role: 'user', content: 'notes:3' },
    { role: 'user', content: 'notes:4' },
    { role: 'user', content: 'notes:2' },
  ]);
  expectPaired(full.messages);

  // The stored snapshot and the model see the window only; the snapshot verifies.
  const stored = await fresh.get(first.runId);
  expect(stored.messages).toEqual(last.messages);
  expect(stored.messages.length).toBeLessThan(full.messages.length);
  const decoded = parseSnapshot(stored.snapshot, { secret: SECRET });
  expect(decoded.state.context.messages).toEqual(last.messages);
  const window = decoded.state.context.window!;
  expect(window.summary).toBe(1);
  expect(full.messages.slice(window.from)).toEqual(last.messages.slice(1));
  expect(seen.at(-1)!.messages.slice(1)).toEqual(last.messages.slice(0, -1));
  // The head alone describes the run; it counts the messages of the log, the whole transcript.
  const head = await fresh.getHead(first.runId);
  expect(head).toMatchObject({ status: 'completed', messageCount: full.messages.length });
  return { runId: first.runId, fresh, window };
}

describe('history in store mode: the full transcript stays in the store', () => {
  it('compacting twice keeps every message in the log, get full returns them, a fresh process resumes', async () => {
    await longRun(memoryStore());
  });

  it('a moved window is refused: the head’s window or the snapshot’s from edited', async () => {
    const store = memoryStore();
    const { runId, fresh, window } = await longRun(store);
    const row = (await store.getParts!(runId))!;
    if (!('head' in row)) throw new Error('expected a layout-2 row');
    const meta = JSON.parse(row.head.slice(0, row.head.indexOf('\n')));
    const envelope = row.head.slice(row.head.indexOf('\n') + 1);
    // Reads of the row with its head replaced (the version stays: only the head is edited).
    const reading = (head: string) =>
      createSessions({
        agent: compactingAgent([], []),
        store: { ...store, getParts: async () => ({ ...row, head }) },
      });
    // As stored, it loads.
    await expect(reading(row.head).get(runId)).resolves.toMatchObject({ status: 'completed' });

    // The head's window one message earlier than the signed snapshot's.
    const earlier = { ...meta, window: { ...meta.window, from: meta.window.from - 1 } };
    await expect(reading(`${JSON.stringify(earlier)}\n${envelope}`).get(runId)).rejects.toMatchObject({
      code: 'SNAPSHOT_TAMPERED',
    });

    // The signed snapshot's `from` edited (with the head's, so they agree): the signature fails.
    const edited = envelope.replace(`"window":{"from":${window.from}`, `"window":{"from":${window.from - 1}`);
    expect(edited).not.toBe(envelope);
    const error = await reading(`${JSON.stringify(earlier)}\n${edited}`)
      .get(runId)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TurnkitError);
    expect(error).toMatchObject({ code: 'SNAPSHOT_TAMPERED' });

    // The text offset of the window moved back one entry: what is assembled is not what was signed.
    const shifted = { ...meta, window: { ...meta.window, at: meta.window.at - 200 } };
    await expect(reading(`${JSON.stringify(shifted)}\n${envelope}`).get(runId)).rejects.toBeInstanceOf(
      TurnkitError,
    );
    expect(fresh).toBeDefined();
  });

  it("'drop' keeps the dropped messages in the log too; the window then has no summary", async () => {
    const agent = defineAgent({
      name: 'desk',
      instructions: 'You keep notes.',
      model: noteTaker([]),
      tools: [noteTool],
      history: compaction({ maxTokens: 700, keepRecent: 3, compact: 'drop' }),
    });
    const sessions = createSessions({ agent, store: memoryStore() });
    const run = await sessions.start('notes:6');
    const last = await sessions.send(run.runId, 'notes:3');
    const compactions = [...run.events, ...last.events].filter((event) => event.type === 'history_compacted');
    expect(compactions.length).toBeGreaterThan(1);
    const full = await sessions.get(run.runId, { transcript: 'full' });
    const window = parseSnapshot(last.snapshot).state.context.window!;
    expect(window.summary).toBe(0);
    expect(full.messages.slice(window.from)).toEqual(last.messages);
    expect(full.messages.slice(0, 2)).toEqual([
      { role: 'user', content: 'notes:6' },
      expect.objectContaining({ role: 'assistant' }),
    ]);
    expectPaired(full.messages);
  });

  it('a compacted run stored whole (layout 1) keeps its window; moved to row layout 2 it appends from there', async () => {
    const removed: ChatMessage[][] = [];
    const inner = memoryStore();
    const { getParts: _getParts, putParts: _putParts, ...whole } = inner;
    const before = createSessions({ agent: compactingAgent([], removed), store: whole });
    const run = await before.start('notes:6');
    expect(removed.length).toBeGreaterThan(0);
    // Without row layout 2 the store holds the window alone: 'full' is the window after its summary.
    const kept = await before.get(run.runId, { transcript: 'full' });
    expect(kept.messages).toEqual(run.messages.slice(1));

    const after = createSessions({ agent: compactingAgent([], removed), store: inner });
    const next = await after.send(run.runId, 'notes:4');
    const last = await after.send(run.runId, 'notes:2');
    expect(last.status).toBe('completed');
    const full = await after.get(run.runId, { transcript: 'full' });
    // The log starts where the layout-1 window did, and every later message is in it.
    expect(full.messages.slice(0, kept.messages.length)).toEqual(kept.messages);
    expect(full.messages).toContainEqual({ role: 'user', content: 'notes:4' });
    expect(full.messages.at(-1)).toEqual(last.messages.at(-1));
    expect(next.status).toBe('completed');
    expectPaired(full.messages.slice(kept.messages.length));
    parseSnapshot(last.snapshot, { secret: SECRET });
  });

  it('a snapshot whose window is malformed, or counts more summary messages than it holds, is SNAPSHOT_INVALID', async () => {
    const agent = defineAgent({ name: 'desk', instructions: 'You keep notes.', model: noteTaker([]) });
    const sessions = createSessions({ agent, store: memoryStore() });
    const run = await sessions.start('notes:0');
    const decoded = parseSnapshot(run.snapshot);
    const withWindow = (window: unknown) =>
      JSON.stringify({
        ...decoded,
        state: { ...decoded.state, context: { ...decoded.state.context, window } },
      });
    expect(parseSnapshot(withWindow({ from: 3, summary: 1 })).state.context.window).toEqual({
      from: 3,
      summary: 1,
    });
    for (const window of [{ from: 0, summary: 9 }, { from: -1, summary: 0 }, { from: 1 }, 'start']) {
      expect(() => parseSnapshot(withWindow(window)), JSON.stringify(window)).toThrow(
        expect.objectContaining({ code: 'SNAPSHOT_INVALID' }),
      );
    }
  });

  it('any run of turns and compactions keeps every message once in the log, each call with one result (property)', async () => {
    let compactedRuns = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        async (turns, keepRecent, drop) => {
          const removed: ChatMessage[][] = [];
          const agent = defineAgent({
            name: 'desk',
            instructions: 'You keep notes.',
            model: noteTaker([]),
            tools: [noteTool],
            snapshot: { secret: SECRET },
            history: compaction({
              maxTokens: 900,
              keepRecent,
              compact: (messages) => {
                removed.push(messages);
                return drop
                  ? { role: 'system', content: `Summary ${removed.length} of ${messages.length} messages` }
                  : `Summary ${removed.length} of ${messages.length} messages`;
              },
            }),
          });
          const sessions = createSessions({ agent, store: memoryStore() });
          let last = await sessions.start(`notes:${turns[0]}`);
          for (const notes of turns.slice(1)) {
            if (last.status !== 'completed') return;
            last = await sessions.send(last.runId, `notes:${notes}`);
          }
          if (last.status !== 'completed') return;
          if (removed.length > 0) compactedRuns++;
          const full = await sessions.get(last.runId, { transcript: 'full' });
          const summaries = (message: ChatMessage) => /^Summary \d+ of/.test(message.content ?? '');
          expect(full.messages).toEqual([
            ...removed.flat().filter((message) => !summaries(message)),
            ...last.messages.filter((message) => !summaries(message)),
          ]);
          expectPaired(full.messages);
          const window = parseSnapshot(last.snapshot, { secret: SECRET }).state.context.window;
          if (window) expect(full.messages.slice(window.from)).toEqual(last.messages.slice(window.summary));
        },
      ),
      { numRuns: 25 },
    );
    // Most generated runs compact (some more than once): the property is not vacuous.
    expect(compactedRuns).toBeGreaterThan(5);
  });

  it('refuses an unknown transcript option, saying which values it takes', async () => {
    const sessions = createSessions({ agent: compactingAgent([], []), store: memoryStore() });
    const run = await sessions.start('notes:1');
    await expect(sessions.get(run.runId, { transcript: 'all' as 'full' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining("'window' or 'full'"),
    });
  });
});
