import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  defineAgent,
  defineTool,
  ModelError,
  runTurn,
  StateError,
  TurnkitError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { errorCode, expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';

describe('runTurn', () => {
  it('completes a turn with text only, and returns a snapshot even when completed', async () => {
    const agent = makeAgent(['Hello there.']);
    const result = await runTurn(agent, { input: 'Hi' });
    expect(result.status).toBe('completed');
    expect(result.needsInput).toBe(false);
    expect(result.output).toBe('Hello there.');
    expect(result.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there.' },
    ]);
    expect(typeof result.snapshot).toBe('string');
    expect(result.runId).toMatch(/^run_[A-Za-z0-9_-]{22}$/);
    expect(result.usage).toEqual({ modelCalls: 1, toolCalls: 0, inputTokens: 0, outputTokens: 0 });
  });

  it('sends the instructions first on every model call, and never stores them in the transcript', async () => {
    const seen: string[] = [];
    const agent = makeAgent([
      (request) => {
        seen.push(`${request.messages[0]?.role}:${request.messages[0]?.content}`);
        return { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] };
      },
      (request) => {
        seen.push(`${request.messages[0]?.role}:${request.messages[0]?.content}`);
        return 'Three vials.';
      },
    ]);
    const result = await runTurn(agent, { input: 'How many K562?' });
    expect(seen).toEqual([
      'system:You are an LN2 inventory assistant.',
      'system:You are an LN2 inventory assistant.',
    ]);
    expect(result.messages.some((message) => message.role === 'system')).toBe(false);
  });

  it('runs tools of one step concurrently and appends results in tool_calls order', async () => {
    const order: string[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push('slow');
        return 'slow done';
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'fast',
      input: z.object({}),
      execute: async () => {
        order.push('fast');
        return 'fast done';
      },
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'slow', arguments: {} },
            { name: 'fast', arguments: {} },
          ],
        },
        'ok',
      ]),
      tools: [slow, fast],
    });
    const result = await runTurn(agent, { input: 'go' });
    expect(order).toEqual(['fast', 'slow']);
    const tools = result.messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.content)).toEqual(['slow done', 'fast done']);
    expect(result.usage.toolCalls).toBe(2);
  });

  it('keeps the application context across turns with superjson, and lets tools change it', async () => {
    const seenInLaterTurn: unknown[] = [];
    const remember = defineTool({
      name: 'remember',
      description: 'remember',
      input: z.object({ key: z.string() }),
      execute: async ({ key }, ctx) => {
        const context = ctx.context as { seen: Map<string, Date> };
        seenInLaterTurn.push(new Map(context.seen));
        context.seen.set(key, new Date('2026-01-02T03:04:05Z'));
        return 'ok';
      },
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel([
        { toolCalls: [{ name: 'remember', arguments: { key: 'first' } }] },
        'done',
        { toolCalls: [{ name: 'remember', arguments: { key: 'second' } }] },
        'done again',
      ]),
      tools: [remember],
    });
    const first = await runTurn(agent, { input: 'go', context: { seen: new Map<string, Date>() } });
    await runTurn(agent, { snapshot: first.snapshot, input: 'next' });
    const restored = seenInLaterTurn[1] as Map<string, Date>;
    expect(restored).toBeInstanceOf(Map);
    expect(restored.get('first')).toBeInstanceOf(Date);
    expect(restored.get('first')?.toISOString()).toBe('2026-01-02T03:04:05.000Z');
  });

  it('replaces the stored context when a new one comes with the snapshot', async () => {
    const seen: unknown[] = [];
    const read = defineTool({
      name: 'read',
      description: 'read',
      input: z.object({}),
      execute: (_input, ctx) => {
        seen.push(ctx.context);
        return 'ok';
      },
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel(['one', { toolCalls: [{ name: 'read', arguments: {} }] }, 'two']),
      tools: [read],
    });
    const first = await runTurn(agent, { input: 'go', context: { user: 'old' } });
    await runTurn(agent, { snapshot: first.snapshot, input: 'next', context: { user: 'new' } });
    expect(seen).toEqual([{ user: 'new' }]);
  });

  it('refuses a context that a snapshot cannot keep, before anything runs', async () => {
    let calls = 0;
    const agent = makeAgent([
      () => {
        calls++;
        return 'x';
      },
    ]);
    const bad = { user: 'u1', callback: () => 1 };
    const error = await runTurn(agent, { input: 'go', context: bad }).catch((caught: unknown) => caught);
    expect(TurnkitError.isInstance(error) && error.code).toBe('CONTEXT_UNSERIALIZABLE');
    expect((error as Error).message).toContain('context.callback');
    expect(calls).toBe(0);
    class Unregistered {
      value = 1;
    }
    await expect(
      runTurn(agent, { input: 'go', context: { item: new Unregistered() } }),
    ).rejects.toMatchObject({
      code: 'CONTEXT_UNSERIALIZABLE',
    });
  });

  it('continues a conversation with the next user message', async () => {
    const agent = makeAgent(['First answer.', 'Second answer.']);
    const first = await runTurn(agent, { input: 'one' });
    const second = await runTurn(agent, { snapshot: first.snapshot, input: 'two' });
    expect(second.runId).toBe(first.runId);
    expect(second.output).toBe('Second answer.');
    expect(second.messages.map((message) => message.content)).toEqual([
      'one',
      'First answer.',
      'two',
      'Second answer.',
    ]);
  });

  it('throws NOT_WAITING for a completed run continued without input', async () => {
    const agent = makeAgent(['Done.']);
    const first = await runTurn(agent, { input: 'one' });
    const error = await runTurn(agent, { snapshot: first.snapshot }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).code).toBe('NOT_WAITING');
  });

  it('starts from an array of messages', async () => {
    const agent = makeAgent(['a1', 'a2']);
    const result = await runTurn(agent, {
      input: [
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ],
    });
    expect(result.output).toBe('a2');
    await expect(runTurn(agent, { input: [{ role: 'system', content: 'x' }] })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });
});

describe('bad tool calls from the model', () => {
  it('answers an unknown tool with unknown_tool and goes on', async () => {
    const agent = makeAgent([{ toolCalls: [{ name: 'delete_everything', arguments: {} }] }, 'Sorry.']);
    const result = await runTurn(agent, { input: 'go' });
    expect(result.status).toBe('completed');
    const content = Object.values(toolResults(result))[0];
    expect(JSON.parse(content!)).toMatchObject({ ok: false, error_code: 'unknown_tool' });
    expect(content).toContain('query_inventory');
  });

  it('answers unparsable JSON arguments with invalid_arguments', async () => {
    const agent = makeAgent([{ toolCalls: [{ name: 'query_inventory', arguments: '{"cellLine": ' }] }, 'ok']);
    const result = await runTurn(agent, { input: 'go' });
    const content = Object.values(toolResults(result))[0]!;
    expect(errorCode(content)).toBe('invalid_arguments');
    expect(JSON.parse(content).message).toMatch(/^Error: Invalid JSON format/);
  });

  it('lists schema issues by path', async () => {
    const agent = makeAgent([
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 5, vials: -1 } }] },
      'ok',
    ]);
    const result = await runTurn(agent, { input: 'go' });
    const message = JSON.parse(Object.values(toolResults(result))[0]!).message as string;
    expect(message.split('\n')[0]).toBe('Error: Validation failed');
    expect(message).toContain('\n- cellLine: ');
    expect(message).toContain('\n- vials: ');
  });

  it('turns a throwing tool into a tool_error result, not a failed turn', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'explodes',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel([{ toolCalls: [{ name: 'boom', arguments: {} }] }, 'handled']),
      tools: [boom],
    });
    const result = await runTurn(agent, { input: 'go' });
    expect(result.status).toBe('completed');
    const content = Object.values(toolResults(result))[0]!;
    expect(JSON.parse(content)).toEqual({
      ok: false,
      error_code: 'tool_error',
      message: 'boom failed: disk on fire',
    });
    const finished = result.events.find((event) => event.type === 'tool_finished');
    expect(finished).toMatchObject({ ok: false, errorCode: 'tool_error' });
  });

  it('stops a tool at its timeout with tool_timeout, and aborts its signal', async () => {
    let aborted = false;
    const hang = defineTool({
      name: 'hang',
      description: 'never ends',
      input: z.object({}),
      timeoutMs: 20,
      execute: (_input, ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel([{ toolCalls: [{ name: 'hang', arguments: {} }] }, 'ok']),
      tools: [hang],
    });
    const result = await runTurn(agent, { input: 'go' });
    expect(errorCode(Object.values(toolResults(result))[0])).toBe('tool_timeout');
    expect(aborted).toBe(true);
  });

  it('repairs malformed calls: missing or duplicate ids, non-string arguments', async () => {
    const model = {
      name: 'broken',
      generate: async (request: { messages: unknown[] }) =>
        request.messages.length > 2
          ? { message: { role: 'assistant' as const, content: 'ok' } }
          : {
              message: {
                role: 'assistant' as const,
                content: null,
                tool_calls: [
                  {
                    id: '',
                    type: 'function' as const,
                    function: { name: 'query_inventory', arguments: { cellLine: 'A' } as unknown as string },
                  },
                  {
                    id: 'dup',
                    type: 'function' as const,
                    function: { name: 'query_inventory', arguments: '{"cellLine":"B"}' },
                  },
                  {
                    id: 'dup',
                    type: 'function' as const,
                    function: { name: 'query_inventory', arguments: '{"cellLine":"C"}' },
                  },
                ],
              },
            },
    };
    const log: string[] = [];
    const agent = makeAgent([], { model }, log);
    const result = await runTurn(agent, { input: 'go' });
    expect(result.status).toBe('completed');
    expect(log.sort()).toEqual(['A', 'B', 'C']);
    expectOneResultPerCall(result);
  });
});

describe('model errors, max steps, aborts', () => {
  it('fails with MODEL_ERROR and a snapshot from before the call, which a retry resumes', async () => {
    let attempts = 0;
    const agent = makeAgent([
      () => {
        attempts++;
        if (attempts === 1) throw new ModelError('upstream 503', { status: 503 });
        return 'Recovered.';
      },
    ]);
    const reported: unknown[] = [];
    const failed = await runTurn(agent, { input: 'go' }, { onError: (error) => reported.push(error) });
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      code: 'MODEL_ERROR',
      message: 'The model provider failed (503). Retry the turn later.',
    });
    expect(reported).toEqual([expect.objectContaining({ message: 'upstream 503', status: 503 })]);
    expect(failed.messages).toEqual([{ role: 'user', content: 'go' }]);
    expect(failed.events.at(-1)?.type).toBe('turn_failed');
    const retried = await runTurn(agent, { snapshot: failed.snapshot });
    expect(retried.status).toBe('completed');
    expect(retried.output).toBe('Recovered.');
    expect(retried.error).toBeNull();
  });

  it('wraps a non-TurnKit model exception as MODEL_ERROR, its text for onError only', async () => {
    const agent = makeAgent([
      () => {
        throw new TypeError('socket hang up at https://llm.internal:8443 (key sk-proj-AbCd****wxyz)');
      },
    ]);
    const reported: { error: unknown; runId: string }[] = [];
    const result = await runTurn(
      agent,
      { input: 'go' },
      {
        onError: (error, info) => {
          reported.push({ error, runId: info.runId });
          throw new Error('a broken onError never breaks the run');
        },
      },
    );
    expect(result.error).toEqual({
      code: 'MODEL_ERROR',
      message: 'The model call failed. Retry the turn later.',
    });
    for (const text of [result.snapshot, JSON.stringify(result.events), JSON.stringify(result)]) {
      expect(text).not.toContain('socket hang up');
      expect(text).not.toContain('llm.internal');
      expect(text).not.toContain('sk-proj');
    }
    expect(reported).toEqual([{ error: expect.any(TypeError), runId: result.runId }]);
  });

  it('stops at maxSteps and continues with a fresh budget', async () => {
    const loop = { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] };
    const agent = makeAgent([loop, loop, loop, 'Finally.'], { maxSteps: 2 });
    const first = await runTurn(agent, { input: 'go' });
    expect(first.status).toBe('max_steps');
    expect(first.usage.modelCalls).toBe(2);
    expect(first.events.at(-1)).toMatchObject({ type: 'turn_max_steps', maxSteps: 2 });
    const second = await runTurn(agent, { snapshot: first.snapshot });
    expect(second.status).toBe('completed');
    expect(second.usage.modelCalls).toBe(2);
    expectOneResultPerCall(second);
  });

  it('aborts gracefully mid-tool: finished results are kept, interrupted calls run again on retry with the same idempotency key', async () => {
    const controller = new AbortController();
    const keys: string[] = [];
    const runs: string[] = [];
    const quick = defineTool({
      name: 'quick',
      description: 'q',
      input: z.object({}),
      execute: () => {
        runs.push('quick');
        return 'quick';
      },
    });
    const slow = defineTool({
      name: 'slow',
      description: 's',
      input: z.object({}),
      execute: (_input, ctx) => {
        keys.push(ctx.idempotencyKey);
        runs.push('slow');
        if (keys.length === 1) {
          setTimeout(() => controller.abort(), 5);
          return new Promise(() => undefined);
        }
        return 'slow';
      },
    });
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'quick', arguments: {} },
            { name: 'slow', arguments: {} },
          ],
        },
        'done',
      ]),
      tools: [quick, slow],
    });
    const aborted = await runTurn(agent, { input: 'go' }, { signal: controller.signal });
    expect(aborted.status).toBe('aborted');
    expect(aborted.events.at(-1)?.type).toBe('turn_aborted');
    const retried = await runTurn(agent, { snapshot: aborted.snapshot });
    expect(retried.status).toBe('completed');
    expect(runs).toEqual(['quick', 'slow', 'slow']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).toBe(`${retried.runId}:call_0_1`);
    expectOneResultPerCall(retried);
  });

  it('leaves no listener behind on a long-lived signal, turn after turn', async () => {
    const { EventEmitter } = await import('node:events');
    const controller = new AbortController();
    const step = { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] };
    const agent = makeAgent([step, 'ok']);
    for (let turn = 0; turn < 20; turn++) {
      const result = await runTurn(agent, { input: 'go' }, { signal: controller.signal });
      expect(result.status).toBe('completed');
    }
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('aborts during a model call and keeps the transcript from before it', async () => {
    const controller = new AbortController();
    const agent = defineAgent({
      name: 'a',
      instructions: 'x',
      model: scriptedModel(['late'], { delayMs: 200 }),
    });
    setTimeout(() => controller.abort(), 10);
    const result = await runTurn(agent, { input: 'go' }, { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(result.messages).toEqual([{ role: 'user', content: 'go' }]);
  });
});

describe('events', () => {
  it('emits typed events in order, with increasing seq across turns, and survives a throwing onEvent', async () => {
    const agent = makeAgent([
      { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] },
      'Three.',
      'Bye.',
    ]);
    const seen: AgentEvent[] = [];
    const result = await runTurn(
      agent,
      { input: 'go' },
      {
        onEvent: (event) => {
          seen.push(event);
          throw new Error('observer bug');
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(seen).toEqual(result.events);
    expect(seen.map((event) => event.type)).toEqual([
      'turn_started',
      'model_started',
      'model_finished',
      'tool_started',
      'tool_finished',
      'model_started',
      'model_delta',
      'model_finished',
      'turn_completed',
    ]);
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(seen.map((event) => event.turn))).toEqual(new Set([1]));
    expect(seen[0]).toMatchObject({ runId: result.runId, agentPath: ['inventory'] });
    const next = await runTurn(agent, { snapshot: result.snapshot, input: 'bye' });
    expect(next.events[0]).toMatchObject({ type: 'turn_started', seq: 10, turn: 2 });
  });
});

describe('model_finished', () => {
  it('carries the assistant message as kept in the transcript', async () => {
    const agent = makeAgent([
      {
        text: 'Looking.',
        toolCalls: [{ id: 'q1', name: 'query_inventory', arguments: { cellLine: 'K562' } }],
      },
      'Done.',
    ]);
    const result = await runTurn(agent, { input: 'go' });
    const finished = result.events.filter((event) => event.type === 'model_finished');
    expect(finished.map((event) => (event as { message: unknown }).message)).toEqual(
      result.messages.filter((message) => message.role === 'assistant'),
    );
  });
});
