/**
 * DESIGN §28 × §30: a message queued with `send(…, { mode: 'queue' })` replays where it was
 * delivered — before the model call it preceded, mid-turn or by the turn that answered the asks —
 * a message played from the queue at rest is a turn input of its own kind, and an ask escalated
 * by the sweeper replays with the response its new assignee gave.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  askUserQuestion,
  type ChatMessage,
  createSessions,
  defineAgent,
  memoryStore,
} from '../src/index.js';
import { recordingOf, replay, type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { gatedTool, landingStore } from './fixtures/late-input.js';
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

const SCAN_STEPS: ScriptedStep[] = [
  { toolCalls: [{ id: 's1', name: 'scan_freezer', arguments: {} }] },
  'done',
];

describe('replay of late input', () => {
  it('a message delivered mid-turn replays before the model call it preceded (events and stored run)', async () => {
    const runs: string[] = [];
    const gated = gatedTool(runs);
    const agent = makeAgent(SCAN_STEPS, { tools: [gated.tool] });
    const store = memoryStore();
    const worker = createSessions({ agent, store, leaseMs: 30 });
    let noticed = () => {};
    const held = new Promise<void>((resolve) => {
      noticed = resolve;
    });
    // Released once the worker holds the message (a lease renewal saw it), so it is delivered mid-turn.
    const onEvent = (event: AgentEvent) => event.type === 'message_queued' && noticed();
    const playing = worker.start({ input: 'scan', runId: 'run_late_replay' }, { onEvent });
    await gated.inside;
    await createSessions({ agent, store }).send('run_late_replay', LATE, { mode: 'queue', messageId: 'm1' });
    await held;
    gated.release();
    const done = await playing;
    // Delivered after the scan's result, before the second model call.
    expect(done.messages.map((message) => message.role).join(' ')).toBe('user assistant tool user assistant');

    const recording = recordingOf(done.events);
    expect(recording.turns[0]!.late).toEqual([
      { messageId: 'm1', step: 2, messages: [{ role: 'user', content: LATE }] },
    ]);
    const requests: ChatMessage[][] = [];
    const today = makeAgent(kept(requests, SCAN_STEPS), { tools: [gatedTool(runs).tool] });
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
    expect(runs).toHaveLength(1);
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
    const { store, arm } = landingStore('m3', LATE);
    arm();
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
