/**
 * A hook's review waits like any other interaction (DESIGN §26, §20): it expires (the point's deny),
 * the sweeper resolves it, an answer link decides it once, a model point's review resumes through
 * another sessions instance, sub-agents run their own hooks, and snapshots (signed, encrypted) keep it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  approve,
  createSessions,
  defineAgent,
  defineHook,
  defineTelemetry,
  defineTool,
  expire,
  type InteractionSpanInfo,
  memoryStore,
  parseSnapshot,
  runTurn,
  type TelemetrySpan,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const SECRET = 'hooks-lifecycle-secret-of-32-characters';
const T0 = new Date('2030-01-01T09:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

function shop(
  runs: number[],
  hooks = [defineHook({ name: 'gate', beforeTool: () => ({ ask: { expiresInMs: 60_000 } }) })],
  encrypt = false,
) {
  const pay = defineTool({
    name: 'pay',
    description: 'Pays.',
    input: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      runs.push(amount);
      return { paid: amount };
    },
  });
  return defineAgent({
    name: 'shop',
    instructions: 'Shop.',
    model: scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 3 } }] },
      (request) => `Done: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [pay],
    hooks,
    snapshot: { secret: SECRET, encrypt },
  });
}

describe('a review that waits', () => {
  it('expires as the point’s deny, the tool never run', async () => {
    const runs: number[] = [];
    const agent = shop(runs);
    const paused = await runTurn(agent, { input: 'pay' }, { now: T0 });
    expect(paused.pendingQuestion?.expiresAt).toBe(later(60_000).toISOString());
    const unchanged = await expire(agent, paused.snapshot, { now: later(1_000) });
    expect(unchanged.snapshot).toBe(paused.snapshot);
    const expired = await expire(agent, paused.snapshot, { now: later(61_000) });
    expect(expired.output).toContain('"error_code":"denied"');
    expect(expired.output).toContain('nobody decided the review');
    expect(runs).toEqual([]);
  });

  it('is resolved by the sweeper in store mode', async () => {
    const runs: number[] = [];
    const sessions = createSessions({ agent: shop(runs), store: memoryStore() });
    const started = await sessions.start({ input: 'pay' }, { now: T0 });
    const swept = await sessions.sweep({ now: later(120_000) });
    expect(swept.swept).toHaveLength(1);
    const done = await sessions.get(started.runId);
    expect(done.status).toBe('completed');
    expect(runs).toEqual([]);
  });

  it('is decided once by a one-click answer link', async () => {
    const runs: number[] = [];
    const sessions = createSessions({ agent: shop(runs), store: memoryStore() });
    const started = await sessions.start({ input: 'pay' });
    const token = await sessions.answerLink(started.runId, started.pendingQuestion!.id, {
      ttlMs: 60_000,
      response: { type: 'approve' },
    });
    const uses = await Promise.allSettled([sessions.answerWithLink(token), sessions.answerWithLink(token)]);
    expect(uses.filter((use) => use.status === 'fulfilled')).toHaveLength(1);
    expect(runs).toEqual([3]);
  });

  it('survives an encrypted snapshot: its subject is not readable in the snapshot text', async () => {
    const runs: number[] = [];
    const agent = shop(runs, undefined, true);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.snapshot).not.toContain('amount');
    expect(
      parseSnapshot(paused.snapshot, { secret: SECRET }).state.context.step?.[0]?.interaction?.kind,
    ).toBe('review');
    await approve(agent, paused.snapshot);
    expect(runs).toEqual([3]);
  });
});

describe('telemetry', () => {
  it('reports a decided review as the human’s span of the turn that goes on, with no subject text', async () => {
    const interactions: InteractionSpanInfo[] = [];
    const span = (): TelemetrySpan => ({
      startModelCall: span,
      startTool: span,
      startAgent: span,
      startInteraction: (info) => {
        interactions.push(info);
        return span();
      },
      end: () => undefined,
      traceContext: { traceId: 'a'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 },
    });
    const telemetry = defineTelemetry({ startTurn: span });
    const agent = shop([]);
    const paused = await runTurn(agent, { input: 'pay' }, { telemetry });
    await approve(agent, paused.snapshot, { rationale: 'secret reason' }, { telemetry });
    expect(interactions).toEqual([
      expect.objectContaining({ kind: 'review', toolName: 'pay', decision: 'approved', toolCallId: 'c1' }),
    ]);
    expect(JSON.stringify(interactions)).not.toContain('secret reason');
  });
});

describe('model point reviews in store mode', () => {
  it('resumes an afterModel review through another sessions instance, the model called once', async () => {
    let modelCalls = 0;
    const model = scriptedModel([
      () => {
        modelCalls++;
        return 'Your refund: 500 EUR';
      },
    ]);
    const review = defineHook({ name: 'review', afterModel: () => ({ ask: { reason: 'Check the reply' } }) });
    const agent = defineAgent({ name: 'support', instructions: 'Help.', model, hooks: [review] });
    const store = memoryStore();
    const started = await createSessions({ agent, store }).start({ input: 'refund?' });
    expect(started.pendingQuestion).toMatchObject({
      kind: 'review',
      toolCallId: '',
      payload: { point: 'afterModel' },
    });
    const done = await createSessions({ agent, store }).approve(started.runId, {
      edit: 'Your refund: 50 EUR',
    });
    expect(done.output).toBe('Your refund: 50 EUR');
    expect(modelCalls).toBe(1);
  });
});

describe('sub-agents', () => {
  it('run their own hooks, not their parent’s', async () => {
    const seen: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks up.',
      input: z.object({}),
      execute: () => 'found',
    });
    const child = defineAgent({
      name: 'child',
      instructions: 'Look up.',
      model: scriptedModel([{ toolCalls: [{ id: 'k1', name: 'lookup', arguments: {} }] }, 'child done']),
      tools: [lookup],
      hooks: [
        defineHook({ name: 'child-hook', beforeTool: (call) => void seen.push(`child-hook:${call.name}`) }),
      ],
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'Delegate.',
      model: scriptedModel([
        { toolCalls: [{ id: 'p1', name: 'ask_child', arguments: { input: 'go' } }] },
        'parent done',
      ]),
      tools: [agentTool(child, { name: 'ask_child', description: 'Asks the child.' })],
      hooks: [
        defineHook({ name: 'parent-hook', beforeTool: (call) => void seen.push(`parent-hook:${call.name}`) }),
      ],
    });
    const call = defineHook({ name: 'call-hook', beforeTool: (c) => void seen.push(`call-hook:${c.name}`) });
    const result = await runTurn(parent, { input: 'go' }, { hooks: [call] });
    expect(result.output).toBe('parent done');
    expect(seen).toEqual(['parent-hook:ask_child', 'call-hook:ask_child', 'child-hook:lookup']);
  });

  it('bubble a sub-agent’s model point review to the person; approved, the child goes on once', async () => {
    let childCalls = 0;
    const child = defineAgent({
      name: 'child',
      instructions: 'Draft.',
      model: scriptedModel([
        () => {
          childCalls++;
          return 'draft reply';
        },
      ]),
      hooks: [defineHook({ name: 'child-review', afterModel: () => ({ ask: true }) })],
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'Delegate.',
      model: scriptedModel([
        { toolCalls: [{ id: 'p1', name: 'ask_child', arguments: { input: 'go' } }] },
        (request) => `parent got: ${request.messages.at(-1)?.content}`,
      ]),
      tools: [agentTool(child, { name: 'ask_child', description: 'Asks the child.' })],
    });
    const paused = await runTurn(parent, { input: 'go' });
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'review',
      agentPath: ['parent', 'child'],
      payload: { hook: 'child-review', point: 'afterModel', subject: { text: 'draft reply' } },
    });
    const done = await approve(parent, paused.snapshot, { edit: 'final reply' });
    expect(done.output).toBe('parent got: final reply');
    expect(childCalls).toBe(1);
  });

  it('emits no hook_decision for a hook that returns nothing', async () => {
    const runs: number[] = [];
    const quiet = defineHook({ name: 'quiet', beforeTool: () => undefined, afterTool: () => undefined });
    const result = await runTurn(shop(runs, [quiet]), { input: 'pay' });
    expect(result.events.some((event) => event.type === 'hook_decision')).toBe(false);
    expect(runs).toEqual([3]);
  });
});
