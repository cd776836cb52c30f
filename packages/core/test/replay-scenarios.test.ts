/**
 * DESIGN §28 on every kind of run: tools that ask, several asks answered in any order, sub-agents'
 * asks, quorum approvals, compaction, an older agent version — and each kind of divergence.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  agentTool,
  answerQuestion,
  approve,
  defineAgent,
  defineTool,
  ModelError,
  provideInput,
  runTurn,
} from '../src/index.js';
import {
  type Recording,
  recordingOf,
  replay,
  type ScriptedStep,
  scriptedModel,
} from '../src/testing/index.js';
import { askingAgent, askLog } from './fixtures/asking-agent.js';
import { ask, cellLineQuestion } from './helpers.js';
import { AT, inventoryAgent, noteAgent, recordThaw, THAW_STEPS } from './replay-fixtures.js';

const collect = () => {
  const events: AgentEvent[] = [];
  return { events, onEvent: (event: AgentEvent) => events.push(event) };
};

beforeEach(() => {
  askLog.length = 0;
});

describe('replay of tools that ask (ctx.ask)', () => {
  for (const kind of ['input', 'question', 'approval'] as const) {
    it(`asks again as recorded (${kind}), runs neither execute nor resume, and ends as recorded`, async () => {
      const agent = askingAgent();
      const { events, onEvent } = collect();
      const paused = await runTurn(agent, { input: kind }, { onEvent });
      const done =
        kind === 'input'
          ? await provideInput(agent, paused.snapshot, { value: { box: 'B2-15' } }, { onEvent })
          : kind === 'question'
            ? await answerQuestion(agent, paused.snapshot, { answers: { Style: 'Barcode' } }, { onEvent })
            : await approve(agent, paused.snapshot, { editedInput: { count: 12 } }, { onEvent });
      askLog.length = 0;
      const { result, divergences } = await replay(askingAgent(), recordingOf(events));
      expect(divergences).toEqual([]);
      expect(askLog).toEqual([]);
      expect(result?.messages).toEqual(done.messages);
      const live = await replay(askingAgent(), recordingOf(events), { tools: 'live' });
      expect(live.divergences).toEqual([]);
      expect(askLog.map((line) => line.split(' ')[0])).toEqual(['execute', 'resume']);
      expect(live.result?.messages).toEqual(done.messages);
    });
  }
});

describe('replay of several asks', () => {
  it('answers two pending questions in the order they were answered, one call each', async () => {
    const other = { ...cellLineQuestion, header: 'Box', question: 'Which box?' };
    const steps = [{ toolCalls: [ask([cellLineQuestion], 'call_a'), ask([other], 'call_b')] }, 'Done.'];
    const agent = inventoryAgent(steps, { query: 0, thaw: 0 });
    const { events, onEvent } = collect();
    const r1 = await runTurn(agent, { input: 'Thaw' }, { onEvent });
    const second = r1.pending.find((item) => item.toolCallId === 'call_b')!;
    const r2 = await answerQuestion(
      agent,
      r1.snapshot,
      { id: second.id, answers: ['K562-RTCB'] },
      { onEvent },
    );
    const r3 = await answerQuestion(
      agent,
      r2.snapshot,
      { answers: { q0: { selected: [], other: 'mine' } } },
      { onEvent },
    );
    for (const recording of [recordingOf(events), recordingOf(r3.snapshot)]) {
      expect(recording.turns[1]!.responses![0]!.interactionId).toBe(second.id);
      const { result, divergences } = await replay(inventoryAgent([], { query: 0, thaw: 0 }), recording);
      expect(divergences).toEqual([]);
      expect(result?.messages).toEqual(r3.messages);
    }
  });
});

describe('replay of approvals by several principals', () => {
  function quorumAgent(quorum: number, assignees = ['ann', 'bob', 'cy']) {
    const thaw = defineTool({
      name: 'record_thaw',
      description: 'Record a thaw',
      input: z.object({ vials: z.number() }),
      needsApproval: true,
      approval: { assignees, quorum },
      execute: async ({ vials }) => ({ thawed: vials }),
    });
    return defineAgent({
      name: 'lab',
      instructions: 'Lab.',
      model: scriptedModel([
        { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { vials: 2 } }] },
        'ok',
      ]),
      tools: [thaw],
    });
  }

  async function recordQuorum(): Promise<{ events: AgentEvent[]; snapshot: string }> {
    const agent = quorumAgent(2);
    const { events, onEvent } = collect();
    const r1 = await runTurn(agent, { input: 'thaw' }, { onEvent, principal: 'dan' });
    const r2 = await approve(agent, r1.snapshot, { rationale: 'fine' }, { onEvent, principal: 'ann' });
    const r3 = await approve(agent, r2.snapshot, {}, { onEvent, principal: 'bob' });
    expect(r3.status).toBe('completed');
    return { events, snapshot: r3.snapshot };
  }

  it('gives each approval again, by its principal, from the log and from the snapshot', async () => {
    const { events, snapshot } = await recordQuorum();
    for (const recording of [recordingOf(events), recordingOf(snapshot)]) {
      expect(recording.turns.map((turn) => turn.principal ?? null)).toEqual([null, 'ann', 'bob']);
      expect(await replay(quorumAgent(2), recording)).toMatchObject({
        divergences: [],
        result: { status: 'completed' },
      });
    }
  });

  it('reports a pause when today’s assignee rule refuses a recorded approver', async () => {
    const { events } = await recordQuorum();
    const { divergences } = await replay(quorumAgent(2, ['ann', 'cy']), recordingOf(events));
    expect(divergences[0]).toMatchObject({ turn: 3, kind: 'pause', actual: { code: 'NOT_ASSIGNEE' } });
  });
});

describe('replay of sub-agents that ask', () => {
  it('plays the child’s recorded responses and answers its bubbled question', async () => {
    const child = defineAgent({
      name: 'picker',
      instructions: 'Pick a line.',
      model: scriptedModel([{ toolCalls: [ask([cellLineQuestion], 'call_child_ask')] }, 'K562-dTAG it is']),
      tools: [(await import('../src/index.js')).askUserQuestion()],
    });
    const parent = (
      model = scriptedModel([
        { toolCalls: [{ id: 'call_pick', name: 'picker', arguments: { input: 'pick' } }] },
        'Picked.',
      ]),
    ) => defineAgent({ name: 'lead', instructions: 'Lead.', model, tools: [agentTool(child)] });
    const { events, onEvent } = collect();
    const r1 = await runTurn(parent(), { input: 'go' }, { onEvent });
    expect(r1.pendingQuestion?.agentPath).toEqual(['lead', 'picker']);
    const r2 = await answerQuestion(parent(), r1.snapshot, { answers: ['K562-dTAG'] }, { onEvent });
    const recording = recordingOf(events);
    expect(recording.turns[0]!.steps.map((step) => step.agentPath.join('/'))).toEqual([
      'lead',
      'lead/picker',
    ]);
    const { result, divergences } = await replay(parent(scriptedModel([])), recording);
    expect(divergences).toEqual([]);
    expect(result?.messages).toEqual(r2.messages);
  });
});

describe('replay of a compacted run', () => {
  it('plays a long run whose history was compacted, with no divergence', async () => {
    const { events, onEvent } = collect();
    const done = await runTurn(noteAgent(), { input: 'note 8 things' }, { onEvent });
    expect(done.output).toBe('all noted');
    expect(events.some((event) => event.type === 'history_compacted')).toBe(true);
    const { result, divergences } = await replay(noteAgent(scriptedModel([])), recordingOf(events));
    expect(divergences).toEqual([]);
    expect(result?.output).toBe('all noted');
    // The summary is not recorded (replay writes its own): the rest of the window is as played.
    expect(result?.messages.slice(-3)).toEqual(done.messages.slice(-3));
  });
});

describe('replay of a failed turn and its retry', () => {
  it('fails where the model failed, and the retry goes on as recorded', async () => {
    let failures = 1;
    const flaky = (): ScriptedStep => {
      if (failures-- > 0) throw new ModelError('The provider is down.');
      return 'Done.';
    };
    const agent = inventoryAgent([flaky, flaky], { query: 0, thaw: 0 });
    const { events, onEvent } = collect();
    const failed = await runTurn(agent, { input: 'hi' }, { onEvent });
    expect(failed.status).toBe('failed');
    const done = await runTurn(agent, { snapshot: failed.snapshot }, { onEvent });
    const recording = recordingOf(events);
    expect(recording.turns.map((turn) => [turn.trigger, turn.status])).toEqual([
      ['input', 'failed'],
      ['retry', 'completed'],
    ]);
    const { result, divergences } = await replay(inventoryAgent([], { query: 0, thaw: 0 }), recording);
    expect(divergences).toEqual([]);
    expect(result?.messages).toEqual(done.messages);
  });
});

describe('replay of a run recorded by an older agent version', () => {
  it('resumes it through today’s migrate, as a stored run would be', async () => {
    const { events } = await recordThaw();
    const migrated: string[] = [];
    const today = inventoryAgent(
      [],
      { query: 0, thaw: 0 },
      {
        version: '2',
        migrate: (decoded) => {
          migrated.push(decoded.agentVersion);
          return decoded;
        },
      },
    );
    const { divergences } = await replay(today, recordingOf(events, { agentVersion: '1' }));
    expect(divergences).toEqual([]);
    expect(migrated).toContain('1');
  });
});

describe('divergences', () => {
  it('tool_changed: today’s schema refuses a recorded call', async () => {
    const { events } = await recordThaw();
    const agent = inventoryAgent([], { query: 0, thaw: 0 });
    const query = agent.toolIndex.get('query_inventory')!;
    const strict = defineTool({
      name: 'query_inventory',
      description: 'Find vials',
      input: z.object({ cellLine: z.enum(['HeLa']) }),
      execute: () => ({}),
    });
    const changed = inventoryAgent(
      [],
      { query: 0, thaw: 0 },
      { tools: agent.tools.map((tool) => (tool === query ? strict : tool)) },
    );
    const { divergences } = await replay(changed, recordingOf(events));
    expect(divergences[0]).toMatchObject({ turn: 2, step: 1, kind: 'tool_changed' });
    expect(String(divergences[0]!.actual)).toContain('invalid_arguments');
  });

  it('output: today’s output schema refuses the recorded final answer', async () => {
    const { events } = await recordThaw();
    const typed = inventoryAgent(
      [],
      { query: 0, thaw: 0 },
      { output: z.object({ vials: z.number() }) as never },
    );
    const { divergences } = await replay(typed, recordingOf(events));
    expect(divergences).toHaveLength(1);
    expect(divergences[0]).toMatchObject({
      turn: 3,
      step: 1,
      kind: 'output',
      expected: 'Thawed one K562-dTAG vial.',
    });
  });

  it('missing: a result the log redacted, where a tool needs it', async () => {
    const { events } = await recordThaw();
    const redacted = events.map((event) =>
      event.type === 'tool_finished' ? { ...event, result: '[redacted]' } : event,
    );
    const runs = { query: 0, thaw: 0 };
    const { divergences } = await replay(inventoryAgent([], runs), recordingOf(redacted));
    expect(divergences.map((divergence) => [divergence.turn, divergence.kind])).toEqual([
      [2, 'missing'],
      [3, 'missing'],
      [4, 'missing'],
    ]);
    expect(runs).toEqual({ query: 0, thaw: 0 });
    const live = await replay(inventoryAgent([], runs), recordingOf(redacted), { tools: 'live' });
    expect(live.divergences).toEqual([]);
  });

  it('pause: today’s budget stops where the recording went on', async () => {
    const { events } = await recordThaw();
    const { divergences } = await replay(
      inventoryAgent([], { query: 0, thaw: 0 }, { budget: { steps: 2 } }),
      recordingOf(events),
    );
    expect(divergences).toContainEqual(
      expect.objectContaining({ kind: 'pause', actual: expect.objectContaining({ kind: 'budget' }) }),
    );
  });

  it('tool_call: with model live, today’s model calls another tool than the recording', async () => {
    const { events } = await recordThaw();
    const today = inventoryAgent(
      [
        { toolCalls: [ask([cellLineQuestion], 'call_other_id')] },
        { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] },
      ],
      { query: 0, thaw: 0 },
    );
    const { divergences } = await replay(today, recordingOf(events), { model: 'live' });
    expect(divergences).toEqual([
      expect.objectContaining({
        turn: 2,
        step: 1,
        kind: 'tool_call',
        expected: [{ name: 'query_inventory', input: { cellLine: 'K562-dTAG' } }],
        actual: [{ name: 'query_inventory', input: { cellLine: 'K562' } }],
      }),
    ]);
  });

  it('with model live, today’s model that calls as recorded passes, its call ids taken from the recording', async () => {
    const { events, results } = await recordThaw();
    const steps = THAW_STEPS.map((step) =>
      typeof step === 'object' && 'toolCalls' in step
        ? { toolCalls: step.toolCalls!.map(({ id: _, ...call }) => call) }
        : step,
    );
    const { result, divergences } = await replay(
      inventoryAgent(steps, { query: 0, thaw: 0 }),
      recordingOf(events),
      {
        model: 'live',
      },
    );
    expect(divergences).toEqual([]);
    expect(result?.messages).toEqual(results[3]!.messages);
  });

  it('plays each turn at its recorded time', async () => {
    const { events } = await recordThaw();
    const recording: Recording = recordingOf(events);
    const { result } = await replay(inventoryAgent([], { query: 0, thaw: 0 }), recording);
    expect(result?.events[0]?.at).toBe(AT(3).toISOString());
  });
});
