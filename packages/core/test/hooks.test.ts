/**
 * Hooks and policies that can ask (DESIGN §26): the four points, chaining, reviews decided in
 * another call (approve, edit, reject, questions with `resume`), the resume rules (the asking hook
 * and those before it never run again; those after it run once; the guarded call runs once),
 * `remember: 'run'`, `toolPolicy`, and HOOK_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AnswerError,
  answerQuestion,
  approve,
  createSessions,
  defineAgent,
  defineHook,
  defineTool,
  type Hook,
  memoryStore,
  reject,
  runTurn,
  StateError,
  toolPolicy,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

/** A payment tool that counts its runs. */
function payTool(runs: unknown[]) {
  return defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number() }),
    execute: async (input) => {
      runs.push(input);
      return { paid: input.amount, card: '4111-1111-1111-1111' };
    },
  });
}

/** A hook that counts its calls per point, and otherwise passes. */
function counter(name: string, calls: string[], extra: Partial<Parameters<typeof defineHook>[0]> = {}): Hook {
  return defineHook({
    name,
    beforeTool: (call) => void calls.push(`${name}:beforeTool:${JSON.stringify(call.input)}`),
    afterTool: () => void calls.push(`${name}:afterTool`),
    ...extra,
  });
}

const payOnce = (amount: number) =>
  scriptedModel([{ toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount } }] }, 'Done.']);

function agentWith(hooks: Hook[], runs: unknown[], model = payOnce(50)) {
  return defineAgent({ name: 'shop', instructions: 'Shop.', model, tools: [payTool(runs)], hooks });
}

const toolResult = (messages: { role: string; content?: unknown }[]) =>
  JSON.parse(messages.find((message) => message.role === 'tool')!.content as string);

describe('hooks at tool points', () => {
  it('chains rewrites in order: beforeTool input, afterTool result (what the model reads)', async () => {
    const runs: unknown[] = [];
    const double = defineHook({
      name: 'double',
      beforeTool: (call) => ({ input: { amount: (call.input as { amount: number }).amount * 2 } }),
    });
    const plusOne = defineHook({
      name: 'plus-one',
      beforeTool: (call) => ({ input: { amount: (call.input as { amount: number }).amount + 1 } }),
    });
    const redact = defineHook({
      name: 'redact',
      afterTool: (_call, result) => ({
        result: JSON.parse(JSON.stringify(result).replace(/\d{4}-\d{4}-\d{4}-(\d{4})/, '****-$1')),
      }),
    });
    const result = await runTurn(agentWith([double, plusOne, redact], runs), { input: 'pay' });
    expect(runs).toEqual([{ amount: 101 }]);
    expect(toolResult(result.messages)).toEqual({ paid: 101, card: '****-1111' });
    const decisions = result.events.filter((event) => event.type === 'hook_decision');
    expect(decisions.map((event) => [event.hook, event.point, event.decision])).toEqual([
      ['double', 'beforeTool', 'rewrite'],
      ['plus-one', 'beforeTool', 'rewrite'],
      ['redact', 'afterTool', 'rewrite'],
    ]);
    expect(JSON.stringify(decisions)).not.toContain('1111');
  });

  it('refuses a rewritten input the schema rejects: invalid_arguments, the tool not run', async () => {
    const runs: unknown[] = [];
    const bad = defineHook({ name: 'bad', beforeTool: () => ({ input: { amount: 'lots' } }) });
    const result = await runTurn(agentWith([bad], runs), { input: 'pay' });
    expect(runs).toEqual([]);
    expect(toolResult(result.messages).error_code).toBe('invalid_arguments');
    expect(result.status).toBe('completed');
  });

  it('gives a result or a denial in place of the tool', async () => {
    const runs: unknown[] = [];
    const cached = defineHook({ name: 'cache', beforeTool: () => ({ result: { paid: 0, cached: true } }) });
    expect(toolResult((await runTurn(agentWith([cached], runs), { input: 'pay' })).messages)).toEqual({
      paid: 0,
      cached: true,
    });
    const deny = defineHook({ name: 'no', beforeTool: () => ({ deny: 'payments are closed' }) });
    const denied = toolResult((await runTurn(agentWith([deny], runs), { input: 'pay' })).messages);
    expect(denied).toMatchObject({ ok: false, error_code: 'denied', reason: 'payments are closed' });
    expect(runs).toEqual([]);
  });
});

describe('async hooks', () => {
  it('chain as sync ones do: an async rewrite, a sync one, then an async ask on what they left', async () => {
    const runs: unknown[] = [];
    const slow = defineHook({
      name: 'slow',
      beforeTool: async (call) => ({ input: { amount: (call.input as { amount: number }).amount + 1 } }),
    });
    const fast = defineHook({
      name: 'fast',
      beforeTool: (call) => ({ input: { amount: (call.input as { amount: number }).amount * 10 } }),
    });
    const asker = defineHook({ name: 'asker', beforeTool: async () => ({ ask: true }) });
    const agent = agentWith([slow, fast, asker], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.pendingQuestion?.payload).toMatchObject({ subject: { input: { amount: 510 } } });
    await approve(agent, paused.snapshot);
    expect(runs).toEqual([{ amount: 510 }]);
  });
});

describe('reviews at beforeTool', () => {
  it('approve: the asking hook and those before it never run again, those after run once, the tool once', async () => {
    const runs: unknown[] = [];
    const calls: string[] = [];
    const asker = counter('asker', calls, {
      beforeTool: (call) => {
        calls.push('asker:beforeTool');
        return { ask: { reason: `pay ${(call.input as { amount: number }).amount}?` } };
      },
    });
    const agent = agentWith([counter('first', calls), asker, counter('last', calls)], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'review',
      toolCallId: 'c1',
      payload: {
        hook: 'asker',
        point: 'beforeTool',
        subject: { id: 'c1', name: 'pay', input: { amount: 50 } },
        reason: 'pay 50?',
      },
    });
    expect(calls).toEqual(['first:beforeTool:{"amount":50}', 'asker:beforeTool']);
    calls.length = 0;
    const done = await approve(agent, paused.snapshot, {});
    expect(done.status).toBe('completed');
    expect(calls).toEqual([
      'last:beforeTool:{"amount":50}',
      'first:afterTool',
      'asker:afterTool',
      'last:afterTool',
    ]);
    expect(runs).toEqual([{ amount: 50 }]);
  });

  it('approve with an edit: re-validated; an invalid edit is ANSWER_INVALID and changes nothing', async () => {
    const runs: unknown[] = [];
    const asker = defineHook({ name: 'asker', beforeTool: () => ({ ask: true }) });
    const agent = agentWith([asker], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    await expect(approve(agent, paused.snapshot, { edit: { amount: 'ten' } })).rejects.toBeInstanceOf(
      AnswerError,
    );
    const done = await approve(agent, paused.snapshot, { edit: { amount: 10 } });
    expect(runs).toEqual([{ amount: 10 }]);
    expect(toolResult(done.messages)).toMatchObject({ paid: 10, input_edited_by_user: { amount: 10 } });
  });

  it('reject: the rationale is the reason of the denied result; the tool never runs', async () => {
    const runs: unknown[] = [];
    const agent = agentWith([defineHook({ name: 'asker', beforeTool: () => ({ ask: true }) })], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    const done = await reject(agent, paused.snapshot, { rationale: 'too much' });
    expect(toolResult(done.messages)).toMatchObject({ error_code: 'denied', reason: 'too much' });
    expect(runs).toEqual([]);
    const resolved = done.events.find((event) => event.type === 'interaction_resolved');
    expect(resolved).toMatchObject({ kind: 'review', decision: 'rejected', rationale: 'too much' });
  });

  it('asks a question; the answer goes to resume, which decides', async () => {
    const runs: unknown[] = [];
    const resumed: unknown[] = [];
    const asker = defineHook({
      name: 'asker',
      beforeTool: () => ({
        ask: { questions: [{ question: 'Which card?', header: 'Card', options: ['Visa', 'Amex'] }] },
      }),
      resume: (answer, subject, ctx) => {
        resumed.push([answer, (subject as { input: unknown }).input, ctx.point]);
        return { input: { amount: 7 } };
      },
    });
    const agent = agentWith([asker], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'question',
      review: { hook: 'asker', point: 'beforeTool' },
    });
    await answerQuestion(agent, paused.snapshot, { answers: { Card: 'Visa' } });
    expect(resumed).toEqual([[{ Card: { selected: ['Visa'] } }, { amount: 50 }, 'beforeTool']]);
    expect(runs).toEqual([{ amount: 7 }]);
  });

  it('answering a review with answers is WRONG_KIND', async () => {
    const agent = agentWith([defineHook({ name: 'asker', beforeTool: () => ({ ask: true }) })], []);
    const paused = await runTurn(agent, { input: 'pay' });
    await expect(answerQuestion(agent, paused.snapshot, { answers: 'x' })).rejects.toMatchObject({
      code: 'WRONG_KIND',
    });
  });
});

describe('reviews at afterTool and the model points', () => {
  it('afterTool: a person checks a result before the model sees it; the tool does not run again', async () => {
    const runs: unknown[] = [];
    const check = defineHook({ name: 'check', afterTool: () => ({ ask: true }) });
    const agent = agentWith([check], runs);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.pendingQuestion?.payload).toMatchObject({ point: 'afterTool', subject: { paid: 50 } });
    const done = await approve(agent, paused.snapshot, { edit: { paid: 50, card: 'hidden' } });
    expect(runs).toHaveLength(1);
    expect(toolResult(done.messages)).toEqual({ paid: 50, card: 'hidden' });
  });

  it('afterModel: a final answer is reviewed before it is returned; edit replaces its text', async () => {
    const review = defineHook({
      name: 'review',
      afterModel: (response) => (response.toolCalls.length ? undefined : { ask: true }),
    });
    let modelCalls = 0;
    const model = scriptedModel([
      () => {
        modelCalls++;
        return 'Refund approved: 500 EUR.';
      },
    ]);
    const agent = defineAgent({ name: 'support', instructions: 'Help.', model, hooks: [review] });
    const paused = await runTurn(agent, { input: 'refund?' });
    expect(paused.pendingQuestion?.payload).toMatchObject({
      point: 'afterModel',
      subject: { text: 'Refund approved: 500 EUR.' },
    });
    expect(paused.messages.at(-1)?.role).toBe('user');
    const done = await approve(agent, paused.snapshot, { edit: 'Refund approved: 50 EUR.' });
    expect(done.output).toBe('Refund approved: 50 EUR.');
    expect(modelCalls).toBe(1);
  });

  it('afterModel review of tool calls: the subject shows their inputs; approved, they run with them', async () => {
    const runs: unknown[] = [];
    const check = defineHook({
      name: 'check',
      afterModel: (response) => (response.toolCalls.length ? { ask: true } : undefined),
    });
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'pay', arguments: '{"amount": 12}' }] },
      'Done.',
    ]);
    const agent = agentWith([check], runs, model);
    const paused = await runTurn(agent, { input: 'pay' });
    expect(paused.pendingQuestion?.payload).toMatchObject({
      point: 'afterModel',
      subject: { text: null, toolCalls: [{ id: 'c1', name: 'pay', input: { amount: 12 } }] },
    });
    const done = await approve(agent, paused.snapshot);
    expect(runs).toEqual([{ amount: 12 }]);
    // The reviewed response is kept as reviewed: its arguments are the subject's inputs, as JSON.
    expect(done.messages[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{"amount":12}' } }] });
  });

  it('afterModel deny: the response is dropped and the model is told why', async () => {
    const deny = defineHook({
      name: 'no-secrets',
      afterModel: (response) =>
        response.text?.includes('secret') ? { deny: 'it leaks a secret' } : undefined,
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel(['the secret is 42', 'I cannot say.']),
      hooks: [deny],
    });
    const result = await runTurn(agent, { input: 'tell me' });
    expect(result.output).toBe('I cannot say.');
    expect(JSON.stringify(result.messages)).not.toContain('42');
  });

  it('beforeModel: a rewrite is for this call only; deny ends the turn blocked', async () => {
    const seen: string[] = [];
    const model = scriptedModel([
      (request) => {
        seen.push(String(request.messages.at(-1)?.content));
        return 'ok';
      },
    ]);
    const rewrite = defineHook({
      name: 'mask',
      beforeModel: (request) => ({
        request: {
          ...request,
          messages: request.messages.map((m) => (m.role === 'user' ? { ...m, content: 'masked' } : m)),
        },
      }),
    });
    const result = await runTurn(defineAgent({ name: 'a', instructions: 'x', model, hooks: [rewrite] }), {
      input: 'my ssn',
    });
    expect(seen).toEqual(['masked']);
    expect(result.messages[0]).toMatchObject({ content: 'my ssn' });
    const block = defineHook({ name: 'closed', beforeModel: () => ({ deny: 'outside office hours' }) });
    const blocked = await runTurn(defineAgent({ name: 'a', instructions: 'x', model, hooks: [block] }), {
      input: 'hi',
    });
    expect(blocked.status).toBe('blocked');
    expect(blocked.error?.message).toContain('outside office hours');
    expect(blocked.events.at(-1)?.type).toBe('turn_blocked');
  });

  it('beforeModel review: approve calls the model once; reject blocks', async () => {
    let modelCalls = 0;
    const model = scriptedModel([
      () => {
        modelCalls++;
        return 'ok';
      },
    ]);
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model,
      hooks: [defineHook({ name: 'gate', beforeModel: () => ({ ask: true }) })],
    });
    const paused = await runTurn(agent, { input: 'hi' });
    expect(paused.pendingQuestion).toMatchObject({ kind: 'review', payload: { point: 'beforeModel' } });
    expect(modelCalls).toBe(0);
    expect((await approve(agent, paused.snapshot)).output).toBe('ok');
    expect(modelCalls).toBe(1);
    expect((await reject(agent, paused.snapshot, { rationale: 'no' })).status).toBe('blocked');
  });
});

describe('remember, policies, errors', () => {
  it("remember: 'run' lets later calls of the tool with the same input pass without asking", async () => {
    const runs: unknown[] = [];
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 5 } }] },
      { toolCalls: [{ id: 'c2', name: 'pay', arguments: { amount: 5 } }] },
      { toolCalls: [{ id: 'c3', name: 'pay', arguments: { amount: 6 } }] },
      'Done.',
    ]);
    const agent = agentWith([toolPolicy({ ask: ['pay'] })], runs, model);
    const paused = await runTurn(agent, { input: 'pay' });
    const next = await approve(agent, paused.snapshot, { remember: 'run' });
    expect(runs).toEqual([{ amount: 5 }, { amount: 5 }]);
    expect(next.pendingQuestion?.payload).toMatchObject({ subject: { input: { amount: 6 } } });
  });

  it("remember: 'run' on a tool's own approval, widened with rememberBy", async () => {
    const runs: unknown[] = [];
    const tool = defineTool({
      name: 'pay',
      description: 'Pays.',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      approval: { rememberBy: () => 'any amount' },
      execute: (input) => runs.push(input),
    });
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 5 } }] },
      { toolCalls: [{ id: 'c2', name: 'pay', arguments: { amount: 9 } }] },
      'Done.',
    ]);
    const agent = defineAgent({ name: 'shop', instructions: 'x', model, tools: [tool] });
    const paused = await runTurn(agent, { input: 'pay' });
    const done = await approve(agent, paused.snapshot, { remember: 'run' });
    expect(done.status).toBe('completed');
    expect(runs).toEqual([{ amount: 5 }, { amount: 9 }]);
  });

  it('toolPolicy: deny, then ask, then allow; prefixes, * and when', async () => {
    const policy = toolPolicy({
      deny: ['delete_*'],
      ask: [{ tool: 'pay', when: (input) => (input as { amount: number }).amount > 100 }],
      allow: ['pay'],
      default: 'deny',
    });
    const decide = (name: string, input: unknown) =>
      policy.beforeTool!(
        { id: 'c', name, input },
        {
          context: undefined,
          runId: 'r',
          agentPath: ['a'],
          principal: undefined,
          step: 1,
          point: 'beforeTool',
        },
      );
    expect(await decide('delete_user', {})).toMatchObject({ deny: expect.any(String) });
    expect(await decide('pay', { amount: 500 })).toMatchObject({ ask: {} });
    expect(await decide('pay', { amount: 5 })).toBeUndefined();
    expect(await decide('other', {})).toMatchObject({ deny: expect.any(String) });
    expect(() => toolPolicy({ deny: [{ tool: 'x' } as never] })).toThrow(/rule/);
  });

  it('HOOK_ERROR: a throwing afterTool fails the turn, keeps the result; retry runs that point only', async () => {
    const runs: unknown[] = [];
    let broken = true;
    const flaky = defineHook({
      name: 'flaky',
      afterTool: () => {
        if (broken) throw new Error('redactor offline');
        return undefined;
      },
    });
    const agent = agentWith([flaky], runs);
    const failed = await runTurn(agent, { input: 'pay' });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'HOOK_ERROR' });
    expect(failed.error?.message).toMatch(/flaky.*afterTool.*redactor offline/);
    broken = false;
    const done = await runTurn(agent, { snapshot: failed.snapshot });
    expect(done.status).toBe('completed');
    expect(runs).toHaveLength(1);
  });

  it('HOOK_ERROR for a malformed decision at beforeTool; retry runs the point again', async () => {
    const runs: unknown[] = [];
    let malformed = true;
    const hook = defineHook({
      name: 'odd',
      beforeTool: () => (malformed ? ({ allow: true } as never) : undefined),
    });
    const agent = agentWith([hook], runs);
    const failed = await runTurn(agent, { input: 'pay' });
    expect(failed.error?.code).toBe('HOOK_ERROR');
    expect(runs).toEqual([]);
    malformed = false;
    expect((await runTurn(agent, { snapshot: failed.snapshot })).status).toBe('completed');
    expect(runs).toHaveLength(1);
  });

  it('refuses hooks not made by defineHook, and two with one name', () => {
    expect(() =>
      defineAgent({ name: 'a', instructions: 'x', model: payOnce(1), hooks: [{} as never] }),
    ).toThrow(/defineHook/);
    const h = defineHook({ name: 'same' });
    expect(() => defineAgent({ name: 'a', instructions: 'x', model: payOnce(1), hooks: [h, h] })).toThrow(
      /unique/,
    );
  });

  it("TurnOptions.hooks run after the agent's", async () => {
    const order: string[] = [];
    const runs: unknown[] = [];
    const mine = defineHook({ name: 'agent-hook', beforeTool: () => void order.push('agent') });
    const call = defineHook({ name: 'call-hook', beforeTool: () => void order.push('call') });
    await runTurn(agentWith([mine], runs), { input: 'pay' }, { hooks: [call] });
    expect(order).toEqual(['agent', 'call']);
  });
});

describe('reviews in sessions (store mode)', () => {
  it('a review resumes in another sessions instance; a repeated approval is idempotent; the tool runs once', async () => {
    const runs: unknown[] = [];
    const calls: string[] = [];
    const asker = defineHook({
      name: 'asker',
      beforeTool: () => {
        calls.push('asker');
        return { ask: true };
      },
    });
    const agent = agentWith([asker, counter('after', calls)], runs);
    const store = memoryStore();
    const started = await createSessions({ agent, store }).start({ input: 'pay' });
    const id = started.pendingQuestion!.id;
    const other = createSessions({ agent, store });
    const done = await other.approve(started.runId, { id });
    expect(done.status).toBe('completed');
    const again = await other.approve(started.runId, { id });
    expect(again.status).toBe('completed');
    // Without its id, and with an edit: a repeat of the same decision reads the run too.
    const edited = await createSessions({ agent, store }).start({ input: 'pay' });
    await other.approve(edited.runId, { edit: { amount: 9 } });
    expect((await other.approve(edited.runId, { edit: { amount: 9 } })).status).toBe('completed');
    await expect(other.approve(edited.runId, { edit: { amount: 8 } })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(runs).toEqual([{ amount: 50 }, { amount: 9 }]);
    expect(calls.filter((call) => call === 'asker')).toHaveLength(2);
    expect(calls.filter((call) => call.startsWith('after:beforeTool'))).toHaveLength(2);
    await expect(other.reject(started.runId, { id })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('lists a review in the inbox', async () => {
    const agent = agentWith(
      [defineHook({ name: 'asker', beforeTool: () => ({ ask: { assignees: ['ana'] } }) })],
      [],
    );
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const started = await sessions.start({ input: 'pay' });
    const page = await sessions.inbox({ assignee: 'ana' });
    expect(page.items.map((item) => [item.runId, item.kind])).toEqual([[started.runId, 'review']]);
    await expect(
      sessions.approve(started.runId, { id: started.pendingQuestion!.id }, { principal: 'bob' }),
    ).rejects.toBeInstanceOf(StateError);
  });
});
