/** DESIGN §28: `sessions.recording(runId)` — a stored run as a recording, replayed through today's agent. */
import { describe, expect, it } from 'vitest';
import { agentTool, createSessions, defineAgent, memoryStore, StateError } from '../src/index.js';
import { replay, scriptedModel } from '../src/testing/index.js';
import { inventoryAgent, noteAgent, THAW_STEPS } from './replay-fixtures.js';

describe('sessions.recording', () => {
  it('records a stored run — answer, edited approval by its principal, next message — that replays as played', async () => {
    const runs = { query: 0, thaw: 0 };
    const sessions = createSessions({ agent: inventoryAgent(THAW_STEPS, runs), store: memoryStore() });
    const r1 = await sessions.start('Thaw K562');
    await sessions.answer(r1.runId, { answers: { 'Cell line': 'K562-dTAG' } });
    await sessions.approve(
      r1.runId,
      { editedInput: { cellLine: 'K562-dTAG', vials: 1 } },
      { principal: 'ann' },
    );
    const last = await sessions.send(r1.runId, 'and HeLa?');
    expect(runs).toEqual({ query: 2, thaw: 1 });
    const recording = await sessions.recording(r1.runId);
    expect(recording).toMatchObject({ source: 'snapshot', agent: 'inventory', runId: r1.runId });
    expect(recording.turns.map((turn) => turn.trigger)).toEqual(['input', 'respond', 'respond', 'input']);
    expect(recording.turns[2]!.principal).toBe('ann');
    const { result, divergences } = await replay(
      inventoryAgent([], runs),
      JSON.parse(JSON.stringify(recording)),
    );
    expect(divergences).toEqual([]);
    expect(result?.messages).toEqual(last.messages);
    expect(runs).toEqual({ query: 2, thaw: 1 });
  });

  it('records the whole transcript of a compacted run, which the snapshot no longer holds', async () => {
    const sessions = createSessions({ agent: noteAgent(), store: memoryStore() });
    const done = await sessions.start('note 8 things');
    const recording = await sessions.recording(done.runId);
    expect(recording.gaps).toBeUndefined();
    expect(recording.turns[0]!.steps).toHaveLength(9);
    expect(done.output).toBe('all noted');
    const { result, divergences } = await replay(noteAgent(scriptedModel([])), recording);
    expect(divergences).toEqual([]);
    expect(result?.output).toBe('all noted');
  });

  it('says missing where a stored run no longer holds a finished sub-agent’s conversation', async () => {
    const child = defineAgent({
      name: 'picker',
      instructions: 'Pick.',
      model: scriptedModel(['K562-dTAG']),
    });
    const lead = (
      model = scriptedModel([
        { toolCalls: [{ id: 'call_pick', name: 'picker', arguments: { input: 'pick' } }] },
        'Picked.',
      ]),
    ) => defineAgent({ name: 'lead', instructions: 'Lead.', model, tools: [agentTool(child)] });
    const sessions = createSessions({ agent: lead(), store: memoryStore() });
    const done = await sessions.start('go');
    const recording = await sessions.recording(done.runId);
    const { divergences } = await replay(lead(scriptedModel([])), recording);
    expect(divergences).toEqual([
      expect.objectContaining({ turn: 1, kind: 'missing', actual: { modelCall: ['lead', 'picker'] } }),
    ]);
  });

  it('refuses an unknown run with RUN_NOT_FOUND', async () => {
    const sessions = createSessions({
      agent: inventoryAgent(THAW_STEPS, { query: 0, thaw: 0 }),
      store: memoryStore(),
    });
    await expect(sessions.recording('nope')).rejects.toThrow(StateError);
  });
});
