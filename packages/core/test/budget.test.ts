import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  answerQuestion,
  approve,
  createSessions,
  defineAgent,
  defineTelemetry,
  type ModelAdapter,
  memoryStore,
  reject,
  runTurn,
  type SpanOutcome,
  type TelemetrySpan,
} from '../src/index.js';
import type { ScriptedStep } from '../src/testing/index.js';
import { ask, cellLineQuestion, codeOf, expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';

const lookup = (id: string) => ({ id, name: 'query_inventory', arguments: { cellLine: 'K562' } });

/** The same agent, made anew each time (a fresh process). */
function agentWith(steps: ScriptedStep[], config: Partial<AgentConfig> = {}, log: string[] = []) {
  return makeAgent(steps, config, log);
}

describe('budgets', () => {
  it('pauses before a model call past `steps`, with { spent, limit }, and goes on when extended', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1')] }, 'three vials'];
    const r1 = await runTurn(agentWith(steps, { budget: { steps: 1 } }), { input: 'how many?' });
    expect(r1.status).toBe('needs_input');
    expect(r1.pendingQuestion).toMatchObject({
      kind: 'budget',
      toolCallId: '',
      toolName: '',
      payload: { spent: { steps: 1, toolCalls: 1 }, limit: { steps: 1 } },
    });
    expect(r1.spend).toMatchObject({ steps: 1, toolCalls: 1 });
    expect(r1.budget).toEqual({ steps: 1 });
    expect(r1.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(await codeOf(answerQuestion(agentWith(steps), r1.snapshot, { answers: 'x' }))).toBe('WRONG_KIND');

    const r2 = await approve(agentWith(steps, { budget: { steps: 1 } }), r1.snapshot, {
      extend: { steps: 1 },
    });
    expect(r2.status).toBe('completed');
    expect(r2.output).toBe('three vials');
    expect(r2.spend.steps).toBe(2);
    expect(r2.budget).toEqual({ steps: 2 });
    expect(r2.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      kind: 'budget',
      decision: 'approved',
      extend: { steps: 1 },
    });
  });

  it('ends the turn budget_exceeded on reject, with every call answered', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1')] }, 'three vials'];
    const agent = agentWith(steps, { budget: { steps: 1 } });
    const r1 = await runTurn(agent, { input: 'how many?' });
    const r2 = await reject(agent, r1.snapshot, { rationale: 'too expensive' });
    expect(r2.status).toBe('budget_exceeded');
    expect(r2.output).toBeNull();
    expect(r2.events.at(-1)).toMatchObject({
      type: 'turn_budget_exceeded',
      spent: { steps: 1 },
      limit: { steps: 1 },
    });
    expectOneResultPerCall(r2);
    // A retry asks again, since the run is still past its budget.
    const r3 = await runTurn(agent, { snapshot: r2.snapshot });
    expect(r3.status).toBe('needs_input');
    expect(r3.pendingQuestion?.kind).toBe('budget');
  });

  it('counts tokens across turns and pauses before the call that would start past them', async () => {
    const usage = { inputTokens: 60, outputTokens: 50 };
    const steps: ScriptedStep[] = [
      { toolCalls: [ask([cellLineQuestion])], usage },
      { text: 'ok', usage },
    ];
    const r1 = await runTurn(agentWith(steps, { budget: { tokens: 100 } }), { input: 'thaw' });
    expect(r1.status).toBe('needs_input');
    expect(r1.pendingQuestion?.kind).toBe('question');
    expect(r1.spend).toMatchObject({ tokens: 110, inputTokens: 60, outputTokens: 50 });
    // A fresh agent object (another process) reads the spend from the snapshot.
    const r2 = await answerQuestion(agentWith(steps, { budget: { tokens: 100 } }), r1.snapshot, {
      answers: 'K562-dTAG',
    });
    expect(r2.status).toBe('needs_input');
    expect(r2.pendingQuestion).toMatchObject({ kind: 'budget', payload: { limit: { tokens: 100 } } });
    const r3 = await approve(agentWith(steps, { budget: { tokens: 100 } }), r2.snapshot, {
      extend: { tokens: 500 },
    });
    expect(r3.status).toBe('completed');
    expect(r3.spend.tokens).toBe(220);
    expect(r3.budget).toEqual({ tokens: 600 });
  });

  it('prices tokens with the agent’s pricing, and counts a cost the adapter reports', async () => {
    const usage = { inputTokens: 1000, outputTokens: 1000 };
    const pricing = { scripted: { inputPerMTok: 2, outputPerMTok: 8 } };
    const steps: ScriptedStep[] = [
      { toolCalls: [lookup('c1')], usage },
      { text: 'ok', usage },
    ];
    const r1 = await runTurn(agentWith(steps, { pricing, budget: { costUsd: 0.01 } }), { input: 'x' });
    expect(r1.spend.costUsd).toBeCloseTo(0.01);
    expect(r1.pendingQuestion).toMatchObject({ kind: 'budget', payload: { limit: { costUsd: 0.01 } } });

    const reporting: ModelAdapter = {
      name: 'metered:model-x',
      generate: async () => ({ message: { role: 'assistant', content: 'hi' }, costUsd: 0.25 }),
    };
    const agent = defineAgent({
      name: 'metered',
      instructions: 'x',
      model: reporting,
      budget: { costUsd: 0.3 },
    });
    const first = await runTurn(agent, { input: 'a' });
    expect(first.status).toBe('completed');
    expect(first.spend.costUsd).toBe(0.25);
    const second = await runTurn(agent, { snapshot: first.snapshot, input: 'b' });
    expect(second.status).toBe('completed');
    const third = await runTurn(agent, { snapshot: second.snapshot, input: 'c' });
    expect(third.pendingQuestion).toMatchObject({ kind: 'budget', payload: { spent: { costUsd: 0.5 } } });
  });

  it('pauses before a step whose tool calls would pass `toolCalls`, and runs them once extended', async () => {
    const log: string[] = [];
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1'), lookup('c2')] }, 'done'];
    const agent = agentWith(steps, {}, log);
    const r1 = await runTurn(agent, { input: 'x' }, { budget: { toolCalls: 1 } });
    expect(r1.pendingQuestion).toMatchObject({ kind: 'budget', payload: { limit: { toolCalls: 1 } } });
    expect(log).toEqual([]);
    const r2 = await approve(agent, r1.snapshot, { extend: { toolCalls: 1 } }, { budget: { toolCalls: 1 } });
    expect(r2.status).toBe('completed');
    expect(log).toEqual(['K562', 'K562']);
    expect(Object.keys(toolResults(r2))).toEqual(['c1', 'c2']);
    expect(r2.spend.toolCalls).toBe(2);
  });

  it('lets the call’s budget override the agent’s per limit', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1')] }, 'done'];
    const agent = agentWith(steps, { budget: { steps: 1, tokens: 1_000_000 } });
    const r1 = await runTurn(agent, { input: 'x' }, { budget: { steps: 5 } });
    expect(r1.status).toBe('completed');
    expect(r1.budget).toEqual({ steps: 5, tokens: 1_000_000 });
  });

  it('supersedes a budget pause with a new message, which then pauses again', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1')] }, 'done', 'again'];
    const agent = agentWith(steps, { budget: { steps: 1 } });
    const r1 = await runTurn(agent, { input: 'x' });
    const r2 = await runTurn(agent, { snapshot: r1.snapshot, input: 'never mind' });
    expect(r2.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      kind: 'budget',
      decision: 'superseded',
    });
    expect(r2.pendingQuestion?.kind).toBe('budget');
    expect(r2.pendingQuestion?.id).not.toBe(r1.pendingQuestion?.id);
  });

  it('refuses a budget or an extension that is not limits', async () => {
    expect(await codeOf(Promise.resolve().then(() => agentWith([], { budget: { steps: -1 } })))).toBe(
      'CONFIG_INVALID',
    );
    expect(
      await codeOf(Promise.resolve().then(() => agentWith([], { budget: { dollars: 1 } as never }))),
    ).toBe('CONFIG_INVALID');
    expect(
      await codeOf(
        Promise.resolve().then(() => agentWith([], { pricing: { scripted: { inputPerMTok: 1 } } as never })),
      ),
    ).toBe('CONFIG_INVALID');
    const agent = agentWith([{ toolCalls: [lookup('c1')] }, 'done'], { budget: { steps: 1 } });
    expect(await codeOf(runTurn(agent, { input: 'x' }, { budget: { tokens: Number.NaN } }))).toBe(
      'CONFIG_INVALID',
    );
    const r1 = await runTurn(agent, { input: 'x' });
    expect(await codeOf(approve(agent, r1.snapshot, { extend: { steps: -2 } }))).toBe('ANSWER_INVALID');
    expect(await codeOf(approve(agent, r1.snapshot, { editedInput: {} }))).toBe('ANSWER_INVALID');
    const approval = agentWith([
      { toolCalls: [{ id: 'c1', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
    ]);
    const asked = await runTurn(approval, { input: 'thaw' });
    expect(await codeOf(approve(approval, asked.snapshot, { extend: { steps: 1 } }))).toBe('ANSWER_INVALID');
  });

  it('pauses and extends through sessions, in a fresh sessions object', async () => {
    const steps: ScriptedStep[] = [{ toolCalls: [lookup('c1')] }, 'done'];
    const store = memoryStore();
    const r1 = await createSessions({ agent: agentWith(steps, { budget: { steps: 1 } }), store }).start('x');
    expect(r1.pendingQuestion?.kind).toBe('budget');
    const sessions = createSessions({ agent: agentWith(steps, { budget: { steps: 1 } }), store });
    const r2 = await sessions.approve(r1.runId, { extend: { steps: 1 } });
    expect(r2.status).toBe('completed');
    expect((await sessions.get(r1.runId)).spend.steps).toBe(2);
  });

  it('reports a model call’s cost and the run’s spend on the spans', async () => {
    const ended: { name: string; outcome: SpanOutcome | undefined }[] = [];
    const span = (name: string): TelemetrySpan => ({
      startModelCall: () => span('model'),
      startTool: () => span('tool'),
      startAgent: () => span('agent'),
      end: (outcome) => void ended.push({ name, outcome }),
    });
    const usage = { inputTokens: 1000, outputTokens: 0 };
    const agent = agentWith([{ text: 'hi', usage }], {
      pricing: { scripted: { inputPerMTok: 3, outputPerMTok: 15 } },
      telemetry: defineTelemetry({ startTurn: () => span('turn') }),
    });
    await runTurn(agent, { input: 'x' });
    expect(ended.find((item) => item.name === 'model')?.outcome).toMatchObject({ costUsd: 0.003 });
    expect(ended.find((item) => item.name === 'turn')?.outcome).toMatchObject({
      spend: { steps: 1, tokens: 1000, costUsd: 0.003 },
    });
  });
});

describe('budgets after an approval, through sessions', () => {
  it('takes an approve without id on a budget pause that follows an approved call', async () => {
    const log: string[] = [];
    const steps: ScriptedStep[] = [
      { toolCalls: [{ id: 'c1', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
      'done',
    ];
    const sessions = createSessions({
      agent: agentWith(steps, { budget: { steps: 1 } }, log),
      store: memoryStore(),
    });
    const r1 = await sessions.start('thaw one');
    expect(r1.pendingQuestion?.kind).toBe('approval');
    const r2 = await sessions.approve(r1.runId);
    expect(r2.pendingQuestion?.kind).toBe('budget');
    const r3 = await sessions.approve(r1.runId, { extend: { steps: 1 } });
    expect(r3.status).toBe('completed');
    expect(log).toEqual(['K562x1']);
  });

  it('refuses a snapshot whose spend or budget pause is malformed', async () => {
    const agent = agentWith([{ toolCalls: [lookup('c1')] }, 'done'], { budget: { steps: 1 } });
    const r1 = await runTurn(agent, { input: 'x' });
    const envelope = JSON.parse(r1.snapshot);
    expect(envelope.state.context.budgetPause).toMatchObject({
      kind: 'budget',
      budget: { limit: { steps: 1 } },
    });
    const broken = (change: (context: Record<string, unknown>) => void) => {
      const copy = JSON.parse(r1.snapshot);
      change(copy.state.context);
      return JSON.stringify(copy);
    };
    for (const snapshot of [
      broken((context) => {
        context.spent = { steps: -1 };
      }),
      broken((context) => {
        (context.budgetPause as { kind: string }).kind = 'approval';
      }),
      broken((context) => {
        context.extended = { steps: 'many' };
      }),
    ]) {
      expect(await codeOf(approve(agent, snapshot, { extend: { steps: 1 } }))).toBe('SNAPSHOT_INVALID');
    }
  });
});
