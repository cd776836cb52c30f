/** DESIGN §28: a recorded run played back through today's agent, and where it acts otherwise. */
import { describe, expect, it } from 'vitest';
import { TurnkitError } from '../src/index.js';
import { assertReplay, readRecording, recordedModel, recordingOf, replay } from '../src/testing/index.js';
import { inventoryAgent, recordThaw, THAW_STEPS } from './replay-fixtures.js';

describe('recordingOf', () => {
  it('records each turn of an event log: inputs, model responses, tool results and who responded', async () => {
    const { events } = await recordThaw();
    const recording = recordingOf(events, { agentVersion: '0' });
    expect(recording).toMatchObject({
      format: 'turnkit.recording',
      version: 1,
      agent: 'inventory',
      runId: 'run-thaw',
      source: 'events',
    });
    expect(recording.turns.map((turn) => [turn.trigger, turn.status])).toEqual([
      ['input', 'needs_input'],
      ['respond', 'needs_input'],
      ['respond', 'completed'],
      ['input', 'completed'],
    ]);
    expect(recording.turns[0]!.input).toEqual([{ role: 'user', content: 'Thaw K562' }]);
    expect(recording.turns[1]!.responses![0]!.response).toEqual({
      type: 'answer',
      answers: { q0: { selected: ['K562-dTAG'] } },
    });
    expect(recording.turns[2]!.responses![0]).toMatchObject({
      principal: 'ann',
      response: {
        type: 'approve',
        rationale: 'one is enough',
        editedInput: { cellLine: 'K562-dTAG', vials: 1 },
      },
    });
    expect(recording.turns[2]!.results.map((result) => result.toolCallId)).toEqual(['call_thaw']);
    expect(JSON.parse(JSON.stringify(recording))).toEqual(recording);
  });

  it('reads the JSONL text of an event log as the events themselves', async () => {
    const { events } = await recordThaw();
    const jsonl = events.map((event) => `${JSON.stringify(event)}\n`).join('');
    expect(recordingOf(jsonl)).toEqual(recordingOf(events));
  });

  it('records a snapshot: its transcript and resolved interactions, turns inferred', async () => {
    const { results } = await recordThaw();
    const recording = recordingOf(results[3]!.snapshot);
    expect(recording).toMatchObject({ source: 'snapshot', agentVersion: '0' });
    expect(recording.turns.map((turn) => turn.trigger)).toEqual(['input', 'respond', 'respond', 'input']);
    expect(recording.turns[2]!.responses![0]).toMatchObject({
      principal: 'ann',
      response: { type: 'approve' },
    });
  });

  it('refuses what is not a recording, saying what to pass', () => {
    expect(() => recordingOf('not json\n')).toThrow(TurnkitError);
    expect(() => readRecording({ format: 'turnkit.recording', version: 9 })).toThrow(
      /version 9 is not supported/,
    );
    expect(() => readRecording({})).toThrow(/not a TurnKit recording/);
    const good = { format: 'turnkit.recording', version: 1, agent: 'a', runId: 'r' };
    const turn = {
      turn: 1,
      trigger: 'input',
      at: '2026-11-01T09:00:00.000Z',
      steps: [],
      results: [],
      asked: [],
    };
    expect(() => readRecording({ ...good, turns: [{ ...turn, steps: null }] })).toThrow(
      /turns\[0\] has no steps list: it was edited or cut short/,
    );
    expect(() => readRecording({ ...good, turns: [turn, { ...turn, trigger: 'jump' }] })).toThrow(
      /turns\[1\] has trigger "jump"/,
    );
    expect(() => readRecording({ ...good, turns: [{ ...turn, at: 'soon' }] })).toThrow(TurnkitError);
  });
});

describe('replay', () => {
  for (const source of ['events', 'snapshot'] as const) {
    it(`plays a recorded run (from ${source}) with no divergence, running no tool`, async () => {
      const { events, results } = await recordThaw();
      const recording = source === 'events' ? recordingOf(events) : recordingOf(results[3]!.snapshot);
      const runs = { query: 0, thaw: 0 };
      const { result, divergences } = await replay(inventoryAgent([], runs), recording);
      expect(divergences).toEqual([]);
      expect(runs).toEqual({ query: 0, thaw: 0 });
      expect(result?.status).toBe('completed');
      expect(result?.messages).toEqual(results[3]!.messages);
    });
  }

  it('runs today’s tools with tools: live, once each', async () => {
    const { events, results } = await recordThaw();
    const runs = { query: 0, thaw: 0 };
    const { result, divergences } = await replay(inventoryAgent([], runs), recordingOf(events), {
      tools: 'live',
    });
    expect(divergences).toEqual([]);
    expect(runs).toEqual({ query: 2, thaw: 1 });
    expect(result?.messages).toEqual(results[3]!.messages);
  });

  it('reports a pause where today’s approval rule no longer asks', async () => {
    const { events } = await recordThaw();
    const runs = { query: 0, thaw: 0 };
    const agent = inventoryAgent([], runs);
    const thaw = agent.toolIndex.get('record_thaw')!;
    const relaxed = inventoryAgent([], runs, {
      tools: agent.tools.map((tool) => (tool === thaw ? { ...thaw, needsApproval: false } : tool)),
    });
    const { divergences } = await replay(relaxed, recordingOf(events));
    expect(divergences[0]).toMatchObject({
      turn: 2,
      step: 2,
      kind: 'pause',
      expected: { kind: 'approval', toolName: 'record_thaw', toolCallId: 'call_thaw' },
    });
    expect(runs.thaw).toBe(0);
  });

  it('assertReplay throws a readable diff: turn, step, kind, expected and actual', async () => {
    const { events } = await recordThaw();
    const agent = inventoryAgent([], { query: 0, thaw: 0 });
    const thaw = agent.toolIndex.get('record_thaw')!;
    const relaxed = inventoryAgent(
      [],
      { query: 0, thaw: 0 },
      {
        tools: agent.tools.map((tool) => (tool === thaw ? { ...thaw, needsApproval: false } : tool)),
      },
    );
    await expect(assertReplay(agent, recordingOf(events))).resolves.toMatchObject({ divergences: [] });
    await expect(assertReplay(relaxed, recordingOf(events))).rejects.toThrow(
      /turn 2, step 2 — pause: the recording paused on approval for record_thaw; today's agent does not\n {2}- expected \(recorded\): \{"kind":"approval"/,
    );
  });

  it('reports missing, not a pass, for a recording that does not start with the first turn', async () => {
    const { events } = await recordThaw();
    const cut = recordingOf(events.filter((event) => event.turn > 1));
    const { result, divergences } = await replay(inventoryAgent([], { query: 0, thaw: 0 }), cut);
    expect(result).toBeNull();
    expect(divergences).toMatchObject([{ turn: 0, kind: 'missing', actual: 'respond' }]);
  });

  it('refuses a recording of another agent', async () => {
    const { events } = await recordThaw();
    const other = { ...recordingOf(events), agent: 'billing' };
    await expect(replay(inventoryAgent([], { query: 0, thaw: 0 }), other)).rejects.toThrow(
      /of agent billing, not inventory/,
    );
  });

  it('recordedModel plays the recorded responses as a scripted model', async () => {
    const { events } = await recordThaw();
    const model = recordedModel(recordingOf(events));
    const first = await model.generate({ messages: [{ role: 'user', content: 'Thaw K562' }], tools: [] });
    expect(first.message.tool_calls?.[0]).toMatchObject({
      id: 'call_ask',
      function: { name: 'AskUserQuestion' },
    });
    expect(THAW_STEPS).toHaveLength(6);
  });
});
