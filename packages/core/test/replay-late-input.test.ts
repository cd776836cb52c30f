/**
 * DESIGN §28 × §30: a message queued with `send(…, { mode: 'queue' })` replays where it was
 * delivered — before the model call it preceded, mid-turn or by the turn that answered the asks —
 * a message played from the queue at rest is a turn input of its own kind, and an ask escalated
 * by the sweeper replays with the response its new assignee gave.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  askUserQuestion,
  type ChatMessage,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
  type SnapshotStore,
} from '../src/index.js';
import { recordingOf, replay, type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { ask, makeAgent } from './helpers.js';

const LATE = 'also thaw one HeLa vial';
const question = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };

/** How many user messages saying LATE each model request held. */
const seen = (requests: ChatMessage[][]) =>
  requests.map((messages) => messages.filter((m) => m.role === 'user' && m.content === LATE).length);

/** Model steps that keep each request's messages. */
function kept(requests: ChatMessage[][], steps: ScriptedStep[]): ScriptedStep[] {
  return steps.map((step) => (request: { messages: ChatMessage[] }) => {
    requests.push(request.messages);
    return step;
  });
}

/** A scan that waits for `release()`, counting its runs. */
function gatedScan(runs: string[]) {
  let release = () => {};
  let entered = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool = defineTool({
    name: 'scan_freezer',
    description: 'Scan the freezer',
    input: z.object({}),
    execute: async () => {
      runs.push('scan');
      entered();
      await gate;
      return { racks: 12 };
    },
  });
  return { tool, inside, release: () => release() };
}

const SCAN_STEPS: ScriptedStep[] = [
  { toolCalls: [{ id: 's1', name: 'scan_freezer', arguments: {} }] },
  'done',
];

describe('replay of late input', () => {
  it('a message delivered mid-turn replays before the model call it preceded (events and stored run)', async () => {
    const runs: string[] = [];
    const gated = gatedScan(runs);
    const agent = makeAgent(SCAN_STEPS, { tools: [gated.tool] });
    const store = memoryStore();
    const worker = createSessions({ agent, store, leaseMs: 30 });
    const playing = worker.start({ input: 'scan', runId: 'run_late_replay' });
    await gated.inside;
    await createSessions({ agent, store }).send('run_late_replay', LATE, { mode: 'queue', messageId: 'm1' });
    gated.release();
    const done = await playing;
    expect(done.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);

    const recording = recordingOf(done.events);
    expect(recording.turns[0]!.late).toEqual([
      { messageId: 'm1', step: 2, messages: [{ role: 'user', content: LATE }] },
    ]);
    const requests: ChatMessage[][] = [];
    const today = makeAgent(kept(requests, SCAN_STEPS), { tools: [gatedScan(runs).tool] });
    const replayed = await replay(today, recording);
    expect(replayed.divergences).toEqual([]);
    expect(replayed.result?.messages).toEqual(done.messages);
    // Today's model, live, reads the message at the second call only.
    const live = await replay(today, recording, { model: 'live' });
    expect(live.divergences).toEqual([]);
    expect(seen(requests)).toEqual([0, 1]);

    const stored = await worker.recording('run_late_replay');
    expect(stored.turns).toHaveLength(1);
    expect(stored.turns[0]!.late).toEqual([{ step: 2, messages: [{ role: 'user', content: LATE }] }]);
    const fromStore = await replay(today, stored);
    expect(fromStore.divergences).toEqual([]);
    expect(fromStore.result?.messages).toEqual(done.messages);
    expect(runs).toEqual(['scan']);
  });

  it('a message queued while asks wait replays in the turn that answered them', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [ask([question], 'q1')] }, 'done'];
    const sessions = createSessions({ agent: makeAgent(steps), store: memoryStore() });
    const paused = await sessions.start('thaw');
    await sessions.send(paused.runId, LATE, { mode: 'queue', messageId: 'm2' });
    const answered = await sessions.answer(paused.runId, { answers: 'K562' });
    const events: AgentEvent[] = [...paused.events, ...answered.events];
    for (const recording of [recordingOf(events), await sessions.recording(paused.runId)]) {
      expect(recording.turns.map((turn) => turn.trigger)).toEqual(['input', 'respond']);
      expect(recording.turns[1]!.late).toMatchObject([{ step: 1, messages: [{ content: LATE }] }]);
      const replayed = await replay(makeAgent([]), recording);
      expect(replayed.divergences).toEqual([]);
      expect(replayed.result?.messages).toEqual(answered.messages);
    }
  });

  it('a message played from the queue once the turn rested is a queued input turn', async () => {
    const inner = memoryStore();
    let land = true;
    // The message lands between the worker's last model call and its result write.
    const store: SnapshotStore = {
      ...inner,
      putParts: async (runId, write, opts) => {
        if (land && opts.lease?.ms === 0) {
          land = false;
          await inner.queueMessage!(runId, {
            id: 'm3',
            messages: JSON.stringify([{ role: 'user', content: LATE }]),
          });
        }
        return inner.putParts!(runId, write, opts);
      },
    };
    const sessions = createSessions({ agent: makeAgent(['first', 'second']), store });
    const events: AgentEvent[] = [];
    const result = await sessions.start('hello', { onEvent: (event) => events.push(event) });
    expect(result.output).toBe('second');
    const recording = recordingOf(events);
    expect(recording.turns[1]).toMatchObject({
      trigger: 'input',
      queued: ['m3'],
      input: [{ role: 'user', content: LATE }],
    });
    const replayed = await replay(makeAgent([]), recording);
    expect(replayed.divergences).toEqual([]);
    expect(replayed.result?.messages).toEqual(result.messages);
  });

  it('an ask escalated by the sweeper replays with the escalated assignee’s response', async () => {
    const T0 = Date.parse('2026-03-02T09:00:00.000Z');
    const HOUR = 3_600_000;
    const kept = (steps: ScriptedStep[]) =>
      defineAgent({
        name: 'inventory',
        instructions: 'LN2 inventory.',
        model: scriptedModel(steps),
        tools: [
          askUserQuestion({
            timeoutMs: 10 * HOUR,
            assignees: ['alice'],
            escalate: [{ afterMs: 2 * HOUR, assignees: ['bob'] }],
          }),
        ],
      });
    const sessions = createSessions({
      agent: kept([{ toolCalls: [ask([question], 'q1')] }, 'done']),
      store: memoryStore(),
    });
    const paused = await sessions.start('ask', { now: new Date(T0) });
    await sessions.sweep({ now: new Date(T0 + 2 * HOUR) });
    const answered = await sessions.answer(
      paused.runId,
      { answers: 'HeLa' },
      { principal: 'bob', now: new Date(T0 + 3 * HOUR) },
    );
    expect(answered.status).toBe('completed');
    for (const recording of [
      recordingOf([...paused.events, ...answered.events]),
      await sessions.recording(paused.runId),
    ]) {
      expect(recording.turns[1]!.principal).toBe('bob');
      const replayed = await replay(kept([]), recording);
      expect(replayed.divergences).toEqual([]);
      expect(replayed.result?.messages).toEqual(answered.messages);
    }
  });
});
