/**
 * DESIGN §28 × §27: a run that hands off and back, recorded from its events, its snapshot and its
 * stored run, replays through today's root — each step played by the agent that played it, a pause
 * in the handed-to agent answered as recorded, and a divergence where today's graph differs.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  answerQuestion,
  createSessions,
  defineAgent,
  defineTool,
  handoff,
  memoryStore,
  runTurn,
} from '../src/index.js';
import { recordedModel, recordingOf, replay } from '../src/testing/index.js';
import { call, deskAgents } from './fixtures/desk-agents.js';
import { ask, cellLineQuestion } from './helpers.js';

const AT = (minute: number) => new Date(Date.UTC(2026, 10, 2, 9, minute));

/** triage hands to freezer, which asks, counts, and hands back; triage answers. */
const TRIAGE = {
  0: { toolCalls: [call('transfer_to_freezer', { reason: 'vials' }, 'h1')] },
  4: 'Anything else?',
};
const FREEZER = {
  1: { toolCalls: [ask([cellLineQuestion], 'q1')] },
  2: { toolCalls: [call('count_vials', { cellLine: 'K562-dTAG' }, 'c1')] },
  3: { toolCalls: [call('transfer_to_triage', {}, 'h2')] },
};

async function recordDesk() {
  const desk = deskAgents({ triage: TRIAGE, freezer: FREEZER });
  const events: AgentEvent[] = [];
  const onEvent = (event: AgentEvent) => events.push(event);
  const r1 = await runTurn(desk.triage, { input: 'K562 vials?', runId: 'run-desk' }, { onEvent, now: AT(0) });
  const r2 = await answerQuestion(
    desk.triage,
    r1.snapshot,
    { answers: { 'Cell line': 'K562-dTAG' } },
    { onEvent, now: AT(1) },
  );
  return { r1, r2, events, log: desk.log };
}

/** Today's agents, whose own models fail if called: replay must answer for both. */
const todaysDesk = (options: Partial<Parameters<typeof deskAgents>[0]> = {}) =>
  deskAgents({ triage: { 99: 'unused' }, freezer: { 99: 'unused' }, ...options });

describe('replay of a run that hands off', () => {
  it('from its events: each step by the agent that played it, the pause in freezer answered as recorded', async () => {
    const { r1, r2, events } = await recordDesk();
    expect(r1.activeAgent).toBe('freezer');
    expect(r2.activeAgent).toBe('triage');
    const recording = recordingOf(events);
    expect(recording.turns.map((turn) => turn.steps.map((step) => step.agentPath[0]))).toEqual([
      ['triage', 'freezer'],
      ['freezer', 'freezer', 'triage'],
    ]);
    expect(recording.turns.map((turn) => turn.handoffs)).toEqual([
      [{ from: 'triage', to: 'freezer' }],
      [{ from: 'freezer', to: 'triage' }],
    ]);
    const today = todaysDesk();
    const { result, divergences } = await replay(today.triage, JSON.parse(JSON.stringify(recording)));
    expect(divergences).toEqual([]);
    expect(today.log).toEqual([]);
    expect(today.requests.triage.concat(today.requests.freezer)).toEqual([]);
    expect(result?.activeAgent).toBe('triage');
    expect(result?.messages).toEqual(r2.messages);
  });

  it('from its snapshot, and from sessions.recording of the stored run', async () => {
    const { r2 } = await recordDesk();
    const fromSnapshot = recordingOf(r2.snapshot);
    expect(fromSnapshot.turns.flatMap((turn) => turn.handoffs ?? [])).toEqual([
      { from: 'triage', to: 'freezer' },
      { from: 'freezer', to: 'triage' },
    ]);
    const replayed = await replay(todaysDesk().triage, fromSnapshot);
    expect(replayed.divergences).toEqual([]);
    expect(replayed.result?.messages).toEqual(r2.messages);

    const desk = deskAgents({ triage: TRIAGE, freezer: FREEZER });
    const sessions = createSessions({ agent: desk.triage, store: memoryStore() });
    const s1 = await sessions.start('K562 vials?');
    const s2 = await sessions.answer(s1.runId, { answers: { 'Cell line': 'K562-dTAG' } });
    const stored = await sessions.recording(s1.runId);
    const today = todaysDesk();
    const fromStore = await replay(today.triage, stored);
    expect(fromStore.divergences).toEqual([]);
    expect(fromStore.result?.messages).toEqual(s2.messages);
    expect(today.log).toEqual([]);
  });

  it('reports tool_changed when the handed-to agent is gone, tool_call when today hands off elsewhere', async () => {
    const { events } = await recordDesk();
    const recording = recordingOf(events);
    const gone = await replay(todaysDesk({ triageHandoffs: () => [] }).triage, recording);
    expect(gone.divergences).toHaveLength(1);
    expect(gone.divergences[0]).toMatchObject({ turn: 1, kind: 'tool_changed' });

    const cryo = defineAgent({ name: 'cryo', instructions: 'Cryo desk.', model: recordedModel(recording) });
    const elsewhere = await replay(
      todaysDesk({ triageHandoffs: () => [handoff(cryo, { toolName: 'transfer_to_freezer' })] }).triage,
      recording,
    );
    expect(elsewhere.divergences).toEqual([
      expect.objectContaining({
        turn: 1,
        kind: 'tool_call',
        expected: [{ from: 'triage', to: 'freezer' }],
        actual: [{ from: 'triage', to: 'cryo' }],
      }),
    ]);
  });

  it('reports tool_call when today’s agent hands off not at all (a plain tool under the transfer’s name)', async () => {
    const { events } = await recordDesk();
    const plain = defineTool({
      name: 'transfer_to_freezer',
      description: 'Notes a transfer request',
      input: z.object({ reason: z.string().optional() }),
      execute: () => ({ noted: true }),
    });
    const today = todaysDesk({ triageHandoffs: () => [], triageConfig: { tools: [plain] } });
    const { divergences } = await replay(today.triage, recordingOf(events));
    expect(divergences).toEqual([
      expect.objectContaining({
        turn: 1,
        kind: 'tool_call',
        expected: [{ from: 'triage', to: 'freezer' }],
        actual: [],
      }),
    ]);
    expect(today.log).toEqual([]);
  });

  it('recordedModel plays the conversation whichever agent played each step', async () => {
    const { r2, events } = await recordDesk();
    const recording = recordingOf(events);
    const model = recordedModel(recording);
    const desk = deskAgents({ triage: {}, freezer: {}, triageConfig: { model }, freezerConfig: { model } });
    const t1 = await runTurn(desk.triage, { input: 'K562 vials?', runId: 'run-desk' }, { now: AT(0) });
    expect(t1.activeAgent).toBe('freezer');
    const t2 = await answerQuestion(
      desk.triage,
      t1.snapshot,
      { answers: { 'Cell line': 'K562-dTAG' } },
      { now: AT(1) },
    );
    expect(t2.output).toBe('Anything else?');
    expect(t2.messages).toEqual(r2.messages);
    expect(desk.log).toEqual(['count:K562-dTAG']);
  });
});
