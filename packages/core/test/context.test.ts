/**
 * The application context (DESIGN §12): checked when each tool ends, so a tool that leaves something
 * a snapshot cannot keep unchanged gets a `tool_error` naming the path and its change is dropped;
 * the run goes on and never strands a session. A caller's context with such values is refused.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSessions, defineTool, memoryStore, parseSnapshot, runTurn } from '../src/index.js';
import { errorCode, makeAgent, toolResults } from './helpers.js';

type Lab = { user: string; notes: unknown[]; extra?: unknown };

/** Each way a value silently changes or breaks in a superjson round trip, and what the error names. */
const BAD_VALUES: [string, () => unknown, RegExp][] = [
  ['a function', () => () => 1, /context\.extra holds a function/],
  ['a symbol value', () => Symbol('s'), /context\.extra holds a symbol/],
  ['a symbol key', () => ({ [Symbol('k')]: 1 }), /context\.extra holds a symbol key/],
  [
    'a sparse array',
    () => Object.assign(new Array(3), { 0: 1, 2: 3 }),
    /context\.extra holds an array with a hole at \[1\]/,
  ],
  [
    'an Error with extra fields',
    () => Object.assign(new Error('boom'), { code: 'E1' }),
    /context\.extra holds an Error with a field "code"/,
  ],
  ['an invalid Date', () => new Date('not a date'), /context\.extra holds an invalid Date/],
  [
    'a non-enumerable property',
    () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }),
    /context\.extra holds a non-enumerable property "hidden"/,
  ],
  [
    'a getter',
    () => ({
      get now() {
        return 1;
      },
    }),
    /context\.extra holds an accessor/,
  ],
  ['an unregistered class instance', () => new (class Tube {})(), /context\.extra holds an instance of Tube/],
  [
    'values nested too deep',
    () => {
      let deep: unknown = {};
      for (let i = 0; i < 20_000; i++) deep = { deep };
      return deep;
    },
    /nested more than 1000 levels deep/,
  ],
];

function agentWithTool(value: () => unknown) {
  const spoil = defineTool({
    name: 'spoil',
    description: 'Puts something in the context',
    input: z.object({}),
    execute: (_input, ctx) => {
      const lab = ctx.context as Lab;
      lab.notes.push('spoiled');
      lab.extra = value();
      return 'spoiled';
    },
  });
  const note = defineTool({
    name: 'note',
    description: 'Adds a note',
    input: z.object({}),
    execute: (_input, ctx) => {
      (ctx.context as Lab).notes.push('noted');
      return 'noted';
    },
  });
  return makeAgent(
    [
      {
        toolCalls: [
          { id: 'call_note', name: 'note', arguments: {} },
          { id: 'call_spoil', name: 'spoil', arguments: {} },
        ],
      },
      'Done.',
    ],
    { tools: [spoil, note] },
  );
}

describe('the context, checked when each tool ends', () => {
  it.each(BAD_VALUES)(
    'a tool that leaves %s gets tool_error naming the path; its change is dropped',
    async (_name, value, message) => {
      const result = await runTurn(agentWithTool(value), {
        input: 'go',
        context: { user: 'ada', notes: [] },
      });
      expect(result.status).toBe('completed');
      const results = toolResults(result);
      expect(errorCode(results.call_spoil)).toBe('tool_error');
      expect(JSON.parse(results.call_spoil!).message).toMatch(message);
      expect(results.call_note).toBe('noted');
      // The snapshot keeps the other tool's change and none of the spoiling tool's.
      expect(parseSnapshot(result.snapshot).context?.json).toEqual({ user: 'ada', notes: ['noted'] });
    },
  );

  it('never strands a session: the run completes, and a retry has nothing to re-run', async () => {
    let runs = 0;
    const leaky = defineTool({
      name: 'leaky',
      description: 'Stores a callback in the context',
      input: z.object({}),
      execute: (_input, ctx) => {
        runs++;
        (ctx.context as Lab).extra = () => 'callback';
        return 'ok';
      },
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'call_leaky', name: 'leaky', arguments: {} }] }, 'Done.'], {
      tools: [leaky],
    });
    const sessions = createSessions({ agent, store: memoryStore() });
    const result = await sessions.start({ input: 'go', context: { user: 'ada', notes: [] } });
    expect(result.status).toBe('completed');
    expect(errorCode(toolResults(result).call_leaky)).toBe('tool_error');
    expect((await sessions.get(result.runId)).status).toBe('completed');
    await expect(sessions.retry(result.runId)).rejects.toMatchObject({ code: 'NOT_WAITING' });
    expect(runs).toBe(1);
  });

  it('checks what needsApproval leaves in the context too', async () => {
    const gated = defineTool({
      name: 'gated',
      description: 'Needs approval',
      input: z.object({}),
      needsApproval: (_input, ctx) => {
        (ctx.context as Lab).extra = Symbol('oops');
        return true;
      },
      execute: () => 'ran',
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'call_gated', name: 'gated', arguments: {} }] }, 'Done.'], {
      tools: [gated],
    });
    const result = await runTurn(agent, { input: 'go', context: { user: 'ada', notes: [] } });
    expect(result.status).toBe('completed');
    expect(JSON.parse(toolResults(result).call_gated!).message).toMatch(/holds a symbol/);
  });

  it.each(BAD_VALUES)(
    'refuses a caller’s context holding %s with CONTEXT_UNSERIALIZABLE, before anything runs',
    async (_name, value) => {
      let modelCalls = 0;
      const agent = makeAgent([
        () => {
          modelCalls++;
          return 'hi';
        },
      ]);
      const context = { user: 'ada', notes: [], extra: value() };
      await expect(runTurn(agent, { input: 'go', context })).rejects.toMatchObject({
        code: 'CONTEXT_UNSERIALIZABLE',
      });
      await expect(
        createSessions({ agent, store: memoryStore() }).start({ input: 'go', context }),
      ).rejects.toMatchObject({
        code: 'CONTEXT_UNSERIALIZABLE',
      });
      expect(modelCalls).toBe(0);
    },
  );
});
