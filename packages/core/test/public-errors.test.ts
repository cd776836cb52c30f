/**
 * Every throw of the public API is a `TurnkitError` with a code (DESIGN §12), whatever a caller
 * passes: missing answers, circular inputs, a broken clock, junk of every shape.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerQuestion,
  approve,
  cancelQuestion,
  createSessions,
  defineAgent,
  defineTool,
  expire,
  memoryStore,
  parseSnapshot,
  readSnapshotHeader,
  reject,
  respond,
  runTurn,
  type Tool,
  TurnkitError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { ask, cellLineQuestion, codeOf, makeAgent, toolResults } from './helpers.js';

async function pausedOnQuestion() {
  const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']);
  return { agent, paused: await runTurn(agent, { input: 'go' }) };
}

async function pausedOnApproval() {
  const agent = makeAgent([
    { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
    'done',
  ]);
  return { agent, paused: await runTurn(agent, { input: 'go' }) };
}

describe('the public API throws only TurnkitErrors', () => {
  it('refuses a missing or non-object answer with ANSWER_INVALID, and changes nothing', async () => {
    const { agent, paused } = await pausedOnQuestion();
    for (const answer of [undefined, null, 5, 'K562', []]) {
      expect(await codeOf(answerQuestion(agent, paused.snapshot, answer as never))).toBe('ANSWER_INVALID');
    }
    for (const decision of [null, 7, 'yes']) {
      expect(await codeOf(approve(agent, paused.snapshot, decision as never))).toBe('ANSWER_INVALID');
      expect(await codeOf(reject(agent, paused.snapshot, decision as never))).toBe('ANSWER_INVALID');
      expect(await codeOf(cancelQuestion(agent, paused.snapshot, decision as never))).toBe('ANSWER_INVALID');
    }
    expect(await codeOf(respond(agent, paused.snapshot, 'answer' as never))).toBe('ANSWER_INVALID');
    expect(await codeOf(respond(agent, paused.snapshot, [{ type: 'shrug' }] as never))).toBe(
      'ANSWER_INVALID',
    );
    expect(await codeOf(respond(agent, paused.snapshot, [{ type: 'cancel', id: 42 }] as never))).toBe(
      'ANSWER_INVALID',
    );
    expect((await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' })).status).toBe('completed');
  });

  it('refuses a circular or non-JSON edited input with ANSWER_INVALID', async () => {
    const { agent, paused } = await pausedOnApproval();
    const circular: Record<string, unknown> = { cellLine: 'K562', vials: 1 };
    circular.self = circular;
    expect(await codeOf(approve(agent, paused.snapshot, { editedInput: circular }))).toBe('ANSWER_INVALID');
    expect(
      await codeOf(approve(agent, paused.snapshot, { editedInput: { cellLine: 'K562', vials: 1, n: 1n } })),
    ).toBe('ANSWER_INVALID');
    const sessions = createSessions({ agent, store: memoryStore() });
    const started = await sessions.start('go');
    expect(await codeOf(sessions.approve(started.runId, { editedInput: circular }))).toBe('ANSWER_INVALID');
    expect(await codeOf(sessions.answer(started.runId, null as never))).toBe('ANSWER_INVALID');
  });

  it('refuses an invalid clock with CONFIG_INVALID before anything runs', async () => {
    const { agent, paused } = await pausedOnQuestion();
    for (const now of [new Date('not a date'), 'yesterday', 0]) {
      const options = { now: now as Date };
      expect(await codeOf(runTurn(agent, { input: 'go' }, options))).toBe('CONFIG_INVALID');
      expect(await codeOf(answerQuestion(agent, paused.snapshot, { answers: 'K562' }, options))).toBe(
        'CONFIG_INVALID',
      );
      expect(await codeOf(expire(agent, paused.snapshot, options))).toBe('CONFIG_INVALID');
    }
    expect(await codeOf(runTurn(agent, { input: 'go' }, null as never))).toBe('CONFIG_INVALID');
  });

  it('throws only TurnkitErrors for any junk in any argument (property)', async () => {
    const { agent, paused } = await pausedOnQuestion();
    const junk = fc.oneof(
      fc.anything(),
      fc.constant(paused.snapshot),
      fc.string().map((text) => paused.snapshot.slice(0, Math.max(0, paused.snapshot.length - text.length))),
    );
    await fc.assert(
      fc.asyncProperty(junk, junk, fc.integer({ min: 0, max: 8 }), async (first, second, entry) => {
        const calls: (() => unknown)[] = [
          () => answerQuestion(agent, first as string, second as never),
          () => approve(agent, first as string, second as never),
          () => reject(agent, first as string, second as never),
          () => cancelQuestion(agent, first as string, second as never),
          () => respond(agent, first as string, second as never),
          () => expire(agent, first as string, second as never),
          () => runTurn(agent, first as never, second as never),
          () => parseSnapshot(first as string, second as never),
          () => readSnapshotHeader(first as string, second as never),
        ];
        try {
          await calls[entry]!();
        } catch (error) {
          if (!TurnkitError.isInstance(error)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('tool error redaction (defineTool errorMessage, the agent toolErrorMessage)', () => {
  const SECRET_TEXT = 'password=hunter2 at 10.0.0.5';
  const leaky = (name: string, errorMessage?: (error: unknown) => string) =>
    defineTool({
      name,
      description: 'Reads the freezer database.',
      input: z.object({}),
      ...(errorMessage ? { errorMessage } : {}),
      execute: () => {
        throw new Error(`connect failed: ${SECRET_TEXT}`);
      },
    });

  async function resultOf(tools: Tool[], toolErrorMessage?: (error: unknown) => string) {
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'You are an LN2 inventory assistant.',
      model: scriptedModel([
        { toolCalls: tools.map((tool, index) => ({ id: `c${index}`, name: tool.name, arguments: {} })) },
        'Sorry.',
      ]),
      tools,
      ...(toolErrorMessage ? { toolErrorMessage } : {}),
    });
    const result = await runTurn(agent, { input: 'How many K562 vials?' });
    expect(result.status).toBe('completed');
    return result;
  }

  it('gives the model the thrown message when nothing redacts it', async () => {
    const result = await resultOf([leaky('read_db')]);
    expect(toolResults(result).c0).toContain(SECRET_TEXT);
  });

  it("puts the tool's errorMessage first, the agent's toolErrorMessage for the other tools", async () => {
    const result = await resultOf(
      [leaky('read_db', () => 'the inventory database is unreachable'), leaky('read_labels')],
      (error) => `failed (${error instanceof Error ? error.constructor.name : typeof error})`,
    );
    const results = toolResults(result);
    expect(JSON.parse(results.c0!)).toMatchObject({
      ok: false,
      error_code: 'tool_error',
      message: 'read_db failed: the inventory database is unreachable',
    });
    expect(JSON.parse(results.c1!).message).toBe('read_labels failed: failed (Error)');
    // The thrown text reaches neither the transcript, nor the events, nor the snapshot.
    expect(JSON.stringify(result.messages)).not.toContain('hunter2');
    expect(JSON.stringify(result.events)).not.toContain('hunter2');
    expect(result.snapshot).not.toContain('hunter2');
  });

  it('keeps the error unread when the redaction itself throws', async () => {
    const result = await resultOf([
      leaky('read_db', () => {
        throw new Error(`while redacting: ${SECRET_TEXT}`);
      }),
    ]);
    expect(JSON.parse(toolResults(result).c0!).message).toBe(
      'read_db failed: it threw an error that could not be read',
    );
    expect(result.snapshot).not.toContain('hunter2');
  });
});
