/**
 * Long runs (DESIGN §22, issue 33): `defineAgent({ history })` compacts the oldest messages before
 * a model call whose request would pass `maxTokens`, never splitting a tool call from its results.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  agentTool,
  type ChatMessage,
  compaction,
  createSessions,
  DEFAULT_KEEP_RECENT,
  defineAgent,
  defineTool,
  estimateTokens,
  type HistoryOptions,
  type ModelAdapter,
  ModelError,
  type ModelRequest,
  memoryStore,
  parseSnapshot,
  runTurn,
  type ToolMessage,
  TurnkitError,
} from '../src/index.js';
import { compactionCut, SUMMARY_PREFIX } from '../src/interpreter/index.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';

const noteTool = defineTool({
  name: 'note',
  description: 'Writes a note',
  input: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ saved: text }),
});

/** A long filler, so a few messages pass a small `maxTokens`. */
const filler = (label: string) => `${label} ${'lorem ipsum '.repeat(20)}`;

/** Every tool call has exactly one result, placed after it. */
function expectPaired(messages: readonly ChatMessage[]): void {
  const seen = new Map<string, number>();
  const results = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) seen.set(call.id, index);
    if (message.role === 'tool') {
      const id = (message as ToolMessage).tool_call_id;
      expect(seen.get(id), `result ${id} without its call before it`).toBeDefined();
      results.set(id, (results.get(id) ?? 0) + 1);
    }
  });
  for (const id of seen.keys()) expect(results.get(id), `call ${id}`).toBe(1);
}

/** The requests a model saw, non-compaction ones only. */
function recording(steps: ScriptedStep[], seen: ModelRequest[], compaction?: ScriptedStep): ModelAdapter {
  const inner = scriptedModel(steps, compaction === undefined ? {} : { compaction });
  return {
    name: inner.name,
    generate(request) {
      seen.push(request);
      return inner.generate(request);
    },
  };
}

/** A model that always calls `note` until the request holds `until` tool results, then answers. */
function noteTaker(seen: ModelRequest[], compaction?: ScriptedStep): ModelAdapter {
  const step: ScriptedStep = (request) => {
    const user = [...request.messages].reverse().find((message) => message.role === 'user');
    const wanted = Number(/notes:(\d+)/.exec(user?.content ?? '')?.[1] ?? 0);
    const after = request.messages.slice(request.messages.lastIndexOf(user!));
    const done = after.filter((message) => message.role === 'tool').length;
    if (done >= wanted) return `done ${done}`;
    return {
      toolCalls: [{ id: `n${request.messages.length}`, name: 'note', arguments: { text: filler('n') } }],
    };
  };
  return recording(
    Array.from({ length: 200 }, () => step),
    seen,
    compaction,
  );
}

function historyAgent(model: ModelAdapter, history: HistoryOptions, extra: object = {}) {
  return defineAgent({
    name: 'desk',
    instructions: 'You keep notes.',
    model,
    tools: [noteTool],
    history: compaction(history),
    ...extra,
  });
}

const requestTokens = (request: ModelRequest) =>
  estimateTokens({ messages: request.messages, tools: request.tools });

const compactedEvents = (events: AgentEvent[]) =>
  events.filter(
    (event): event is Extract<AgentEvent, { type: 'history_compacted' }> =>
      event.type === 'history_compacted',
  );

describe('history: config', () => {
  it('refuses compaction() options no run could use, naming the field', () => {
    const model = scriptedModel(['hi']);
    const bad: unknown[] = [
      null,
      {},
      { maxTokens: 0 },
      { maxTokens: 1.5 },
      { maxTokens: 100, keepRecent: -1 },
      { maxTokens: 100, compact: 'summary' },
    ];
    for (const history of bad) {
      let error: unknown;
      try {
        historyAgent(model, history as HistoryOptions);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TurnkitError);
      expect((error as TurnkitError).code).toBe('CONFIG_INVALID');
      expect((error as TurnkitError).message).toMatch(/^compaction\(\): /);
    }
  });

  it('refuses a history not made by compaction(), saying how to make one', () => {
    const model = scriptedModel(['hi']);
    for (const history of [{ maxTokens: 100 }, null, 'drop', { ...compaction({ maxTokens: 100 }) }]) {
      let error: unknown;
      try {
        defineAgent({ name: 'desk', instructions: 'Help.', model, history: history as never });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TurnkitError);
      expect((error as TurnkitError).code).toBe('CONFIG_INVALID');
      expect((error as TurnkitError).message).toMatch(/history must be made by compaction\(/);
    }
    // The value is read-only and keeps its options for whoever reads the agent.
    const made = compaction({ maxTokens: 100, keepRecent: 2, compact: 'drop' });
    expect(Object.isFrozen(made)).toBe(true);
    expect({ ...made }).toEqual({ maxTokens: 100, keepRecent: 2, compact: 'drop' });
  });

  it('estimates one token per 4 characters of the messages and tools JSON', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'abc' }];
    const expected = Math.ceil((JSON.stringify(messages).length + JSON.stringify([]).length) / 4);
    expect(estimateTokens({ messages, tools: [] })).toBe(expected);
    expect(DEFAULT_KEEP_RECENT).toBeGreaterThan(0);
  });
});

describe('history: compaction in a run', () => {
  it('summarises the oldest messages with the agent model (default), counting its usage', async () => {
    const seen: ModelRequest[] = [];
    const model = noteTaker(seen, {
      text: 'The user asked for notes; several were saved.',
      usage: { inputTokens: 70, outputTokens: 7 },
    });
    const agent = historyAgent(model, { maxTokens: 700, keepRecent: 2 }, { budget: { tokens: 1_000_000 } });
    const result = await runTurn(agent, { input: `${filler('please')} notes:8` });
    expect(result.status).toBe('completed');
    const compactions = seen.filter((request) => request.purpose === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]!.tools).toEqual([]);
    const events = compactedEvents(result.events);
    expect(events.length).toBe(compactions.length);
    expect(events[0]).toMatchObject({ strategy: 'model' });
    expect(events[0]!.removed).toBeGreaterThan(0);
    expect(events[0]!.tokensAfter).toBeLessThanOrEqual(700);
    expect(events[0]!.tokensBefore).toBeGreaterThan(700);
    for (const request of seen.filter((request) => request.purpose === undefined)) {
      expect(requestTokens(request)).toBeLessThanOrEqual(700);
    }
    const summary = result.messages.find(
      (message) => message.role === 'user' && message.content.startsWith(SUMMARY_PREFIX),
    );
    expect(summary?.content).toContain('several were saved');
    expect(events.at(-1)!.summaryChars).toBe(summary!.content!.length);
    expectPaired(result.messages);
    // The compaction calls count in the turn's usage and in the run's spend (not as steps).
    expect(result.usage.inputTokens).toBe(70 * compactions.length);
    expect(result.usage.outputTokens).toBe(7 * compactions.length);
    expect(result.spend.tokens).toBe(77 * compactions.length);
    expect(result.spend.steps).toBe(seen.length - compactions.length);
    expect(result.usage.modelCalls).toBe(seen.length);
    // The snapshot holds the window, not the whole history.
    expect(JSON.parse(result.snapshot).state.context.messages).toEqual(result.messages);
  });

  it("'drop' removes the oldest messages without a summary or a model call", async () => {
    const seen: ModelRequest[] = [];
    const agent = historyAgent(noteTaker(seen), { maxTokens: 600, keepRecent: 3, compact: 'drop' });
    const result = await runTurn(agent, { input: `notes:10` });
    expect(result.status).toBe('completed');
    expect(seen.some((request) => request.purpose === 'compaction')).toBe(false);
    const events = compactedEvents(result.events);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.strategy === 'drop' && event.summaryChars === 0)).toBe(true);
    for (const request of seen) expect(requestTokens(request)).toBeLessThanOrEqual(600);
    expectPaired(result.messages);
    expect(result.messages.length).toBeLessThan(1 + 2 * 10 + 1);
  });

  it('a custom compact gets the removed messages and ctx; its ChatMessage is kept as is', async () => {
    const seen: ModelRequest[] = [];
    const calls: { count: number; runId: string; agentPath: string[]; maxTokens: number }[] = [];
    const agent = historyAgent(noteTaker(seen), {
      maxTokens: 600,
      keepRecent: 2,
      compact: (messages, ctx) => {
        calls.push({
          count: messages.length,
          runId: ctx.runId,
          agentPath: ctx.agentPath,
          maxTokens: ctx.maxTokens,
        });
        expectPaired(messages);
        return { role: 'system', content: `earlier: ${messages.length} messages` };
      },
    });
    const result = await runTurn(agent, { input: 'notes:6', runId: 'run_custom' });
    expect(result.status).toBe('completed');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toMatchObject({ runId: 'run_custom', agentPath: ['desk'], maxTokens: 600 });
    expect(result.messages.some((message) => message.role === 'system')).toBe(true);
    expect(compactedEvents(result.events)[0]).toMatchObject({ strategy: 'custom' });
    expectPaired(result.messages);
  });

  it('a failed compaction (model error) fails the turn with the history untouched; a retry goes on', async () => {
    const seen: ModelRequest[] = [];
    let failing = true;
    const model = noteTaker(seen, () => {
      if (failing) throw new ModelError('provider down', { publicMessage: 'The model is unavailable.' });
      return 'all notes so far';
    });
    const agent = historyAgent(model, { maxTokens: 600, keepRecent: 2 });
    const failed = await runTurn(agent, { input: 'notes:6' });
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'MODEL_ERROR', message: 'The model is unavailable.' });
    expect(compactedEvents(failed.events)).toEqual([]);
    expect(failed.messages[0]).toEqual({ role: 'user', content: 'notes:6' });
    expectPaired(failed.messages);
    const before = failed.messages.length;
    failing = false;
    const retried = await runTurn(agent, { snapshot: failed.snapshot });
    expect(retried.status).toBe('completed');
    expect(compactedEvents(retried.events).length).toBeGreaterThan(0);
    expect(retried.messages.length).toBeLessThan(before + 20);
    expectPaired(retried.messages);
  });

  it('a compact function that throws fails with COMPACTION_ERROR (to onError), history untouched', async () => {
    const errors: unknown[] = [];
    const agent = historyAgent(noteTaker([]), {
      maxTokens: 600,
      keepRecent: 2,
      compact: () => {
        throw new Error('boom');
      },
    });
    const result = await runTurn(agent, { input: 'notes:6' }, { onError: (error) => errors.push(error) });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('COMPACTION_ERROR');
    expect(result.error?.message).toMatch(/history\.compact/);
    expect(errors).toHaveLength(1);
    expect(result.messages[0]).toEqual({ role: 'user', content: 'notes:6' });
  });

  it('a compact function returning a tool message, or nothing, is COMPACTION_ERROR saying what it returned', async () => {
    for (const value of [{ role: 'tool', tool_call_id: 'x', content: 's' }, undefined, 42]) {
      const agent = historyAgent(noteTaker([]), {
        maxTokens: 600,
        keepRecent: 2,
        compact: () => value as unknown as string,
      });
      const result = await runTurn(agent, { input: 'notes:6' });
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('COMPACTION_ERROR');
      expect(result.error?.message).toMatch(/neither a string nor/);
      expectPaired(result.messages);
    }
  });

  it('a countTokens that throws fails the turn with MODEL_ERROR before the model is called', async () => {
    const seen: ModelRequest[] = [];
    const inner = recording(['hi'], seen);
    const errors: unknown[] = [];
    const model: ModelAdapter = {
      ...inner,
      countTokens: () => {
        throw new Error('tokenizer missing');
      },
    };
    const agent = historyAgent(model, { maxTokens: 600 });
    const result = await runTurn(agent, { input: 'hello' }, { onError: (error) => errors.push(error) });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('MODEL_ERROR');
    expect(result.error?.message).toMatch(/countTokens/);
    expect(errors).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it('an abort during the compaction ends the turn aborted, the history untouched', async () => {
    const controller = new AbortController();
    const agent = historyAgent(noteTaker([]), {
      maxTokens: 600,
      keepRecent: 2,
      compact: (messages) => {
        controller.abort();
        return `summary of ${messages.length}`;
      },
    });
    const result = await runTurn(agent, { input: 'notes:6' }, { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(compactedEvents(result.events)).toEqual([]);
    expect(result.messages[0]).toEqual({ role: 'user', content: 'notes:6' });
    expectPaired(result.messages);
  });

  it('fails with HISTORY_TOO_LONG when even the kept messages pass maxTokens, without calling the model', async () => {
    const seen: ModelRequest[] = [];
    const agent = historyAgent(recording(['hi'], seen), { maxTokens: 20 });
    const result = await runTurn(agent, { input: filler('too long') });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('HISTORY_TOO_LONG');
    expect(result.error?.message).toMatch(/maxTokens \(20\)/);
    expect(seen).toEqual([]);
  });

  it("uses the adapter's countTokens when it has one", async () => {
    const seen: ModelRequest[] = [];
    const inner = noteTaker(seen);
    const counted: number[] = [];
    const model: ModelAdapter = {
      ...inner,
      countTokens: ({ messages }) => {
        counted.push(messages.length);
        return messages.length * 10;
      },
    };
    const agent = historyAgent(model, { maxTokens: 60, keepRecent: 2, compact: 'drop' });
    const result = await runTurn(agent, { input: 'notes:6' });
    expect(result.status).toBe('completed');
    expect(counted.length).toBeGreaterThan(0);
    for (const request of seen) expect(request.messages.length * 10).toBeLessThanOrEqual(60);
    expect(compactedEvents(result.events)[0]!.tokensAfter).toBeLessThanOrEqual(60);
  });

  it('a sub-agent compacts its own transcript with its own history option', async () => {
    const childSeen: ModelRequest[] = [];
    const child = defineAgent({
      name: 'scribe',
      instructions: 'You keep notes.',
      model: noteTaker(childSeen),
      tools: [noteTool],
      history: compaction({ maxTokens: 600, keepRecent: 2, compact: 'drop' }),
    });
    const parentSeen: ModelRequest[] = [];
    const parent = defineAgent({
      name: 'lead',
      instructions: 'Delegate.',
      model: recording(
        [{ toolCalls: [{ id: 'd1', name: 'scribe', arguments: { input: 'notes:8' } }] }, 'ok'],
        parentSeen,
      ),
      tools: [agentTool(child)],
    });
    const result = await runTurn(parent, { input: 'go' });
    expect(result.status).toBe('completed');
    const events = compactedEvents(result.events);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.agentPath.join('/') === 'lead/scribe')).toBe(true);
    for (const request of childSeen) expect(requestTokens(request)).toBeLessThanOrEqual(600);
    expect(parentSeen.length).toBe(2);
    expectPaired(result.messages);
  });
});

describe('history: sessions', () => {
  it('a signed run in store mode compacts, is stored with its window and goes on in the next turn', async () => {
    const agent = historyAgent(
      noteTaker([]),
      { maxTokens: 600, keepRecent: 3, compact: 'drop' },
      { snapshot: { secret: 'history-secret' } },
    );
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const first = await sessions.start('notes:6');
    expect(first.status).toBe('completed');
    expect(compactedEvents(first.events).length).toBeGreaterThan(0);
    const second = await sessions.send(first.runId, 'notes:1');
    expect(second.status).toBe('completed');
    const stored = await sessions.get(first.runId);
    const decoded = parseSnapshot(stored.snapshot, { secret: 'history-secret' });
    expect(decoded.state.context.messages).toEqual(second.messages);
    expectPaired(second.messages);
    expect(second.messages).toContainEqual({ role: 'user', content: 'notes:1' });
    expect(second.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done 1' });
  });
});

/** Random well-formed transcripts: user and assistant text, and steps of calls with their results. */
const block: fc.Arbitrary<Block> = fc.oneof<fc.Arbitrary<Block>[]>(
  fc.record({ kind: fc.constant('user' as const), size: fc.nat(300) }),
  fc.record({ kind: fc.constant('text' as const), size: fc.nat(300) }),
  fc.record({
    kind: fc.constant('calls' as const),
    calls: fc.integer({ min: 1, max: 3 }),
    size: fc.nat(300),
    reversed: fc.boolean(),
  }),
);

type Block =
  | { kind: 'user' | 'text'; size: number }
  | { kind: 'calls'; calls: number; size: number; reversed: boolean };

function transcriptOf(blocks: Block[], pendingCalls: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'start' }];
  let next = 0;
  for (const item of blocks) {
    const content = 'x'.repeat(item.size);
    if (item.kind === 'user') messages.push({ role: 'user', content });
    else if (item.kind === 'text') messages.push({ role: 'assistant', content });
    else if (item.kind === 'calls') {
      const ids = Array.from({ length: item.calls }, () => `c${next++}`);
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: ids.map((id) => ({
          id,
          type: 'function',
          function: { name: 'note', arguments: '{"text":"a"}' },
        })),
      });
      const results = ids.map((id): ChatMessage => ({ role: 'tool', tool_call_id: id, content }));
      messages.push(...(item.reversed ? results.reverse() : results));
    }
  }
  if (pendingCalls > 0) {
    const ids = Array.from({ length: pendingCalls }, () => `p${next++}`);
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'note', arguments: '{}' } })),
    });
    // Some of the pending step's results may already be in.
    messages.push({ role: 'tool', tool_call_id: ids[0]!, content: 'first' });
  }
  return messages;
}

describe('history: properties', () => {
  it('a cut never splits a call from its results, keeps keepRecent and the pending step', () => {
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 30 }),
        fc.nat(3),
        fc.nat(12),
        (blocks, pendingCalls, keepRecent) => {
          const messages = transcriptOf(blocks, pendingCalls);
          const keep = new Set(
            pendingCalls > 0
              ? (
                  (
                    messages.findLast((message) => message.role === 'assistant') as {
                      tool_calls: { id: string }[];
                    }
                  ).tool_calls ?? []
                ).map((call) => call.id)
              : [],
          );
          const cut = compactionCut(messages, keepRecent, keep);
          const window = messages.slice(cut);
          expect(cut === 0 || window.length >= keepRecent).toBe(true);
          expect(window[0]?.role).not.toBe('tool');
          // Calls before the cut have their results before it; those after, after it.
          const removed = messages.slice(0, cut);
          expectPaired(removed);
          const windowCalls = new Set(
            window
              .flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : []))
              .map((c) => c.id),
          );
          for (const message of window) {
            if (message.role === 'tool') expect(windowCalls.has(message.tool_call_id)).toBe(true);
          }
          for (const id of keep) expect(windowCalls.has(id)).toBe(true);
          // The last model message (the current step) is kept.
          const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
          if (lastAssistant >= 0) expect(cut).toBeLessThanOrEqual(lastAssistant);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every tool call keeps exactly one result after any compaction of a run, and requests fit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(block, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 30, max: 120 }),
        fc.nat(10),
        fc.constantFrom<'drop' | 'model'>('drop', 'model'),
        async (blocks, percent, keepRecent, mode) => {
          const input = transcriptOf(blocks, 0);
          if (input.at(-1)?.role === 'assistant' && !('tool_calls' in input.at(-1)!)) {
            input.push({ role: 'user', content: 'and now?' });
          }
          // maxTokens from 30% to 120% of the first request: most runs compact, some cannot fit.
          const first = estimateTokens({
            messages: [{ role: 'system', content: 'Help.' }, ...input],
            tools: [noteTool.spec],
          });
          const maxTokens = Math.max(40, Math.floor((first * percent) / 100));
          const seen: ModelRequest[] = [];
          const model = recording(
            Array.from({ length: 200 }, () => 'fine'),
            seen,
            'short summary',
          );
          const history: HistoryOptions = {
            maxTokens,
            keepRecent,
            ...(mode === 'drop' ? { compact: 'drop' } : {}),
          };
          const agent = defineAgent({
            name: 'desk',
            instructions: 'Help.',
            model,
            tools: [noteTool],
            history: compaction(history),
          });
          const result = await runTurn(agent, { input });
          expectPaired(result.messages);
          for (const request of seen.filter((request) => request.purpose === undefined)) {
            expect(requestTokens(request)).toBeLessThanOrEqual(maxTokens);
          }
          if (result.status === 'failed') {
            expect(result.error?.code).toBe('HISTORY_TOO_LONG');
            expect(result.messages).toEqual(input);
          } else {
            expect(result.status).toBe('completed');
            const events = compactedEvents(result.events);
            if (events.length > 0)
              expect(events[0]!.kept).toBeGreaterThanOrEqual(Math.min(keepRecent, input.length));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
