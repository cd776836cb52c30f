/**
 * The pure parts of the AI SDK adapter: `toUIMessageChunks` (a turn as chunks, for a server of your
 * own), `toUIMessages` (a run as `useChat`'s messages), `turnkitSendAutomaticallyWhen`, and the
 * promise that `@turnkit/adapters/ai-sdk/client` bundles for a browser with nothing from Node.
 */
import { fileURLToPath } from 'node:url';
import {
  answerQuestion,
  approve,
  defineAgent,
  defineTool,
  reject,
  runTurn,
  type TurnResult,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { validateUIMessages } from 'ai';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { turnkitSendAutomaticallyWhen, type UIMessageLike } from '../src/protocols/ai-sdk-ui/client.js';
import { toUIMessageChunks, toUIMessages } from '../src/protocols/ai-sdk-ui/index.js';
import { askingAgent, leadAgent, newCounts } from './helpers/ai-sdk-agents.js';
import { expectValidChunk } from './helpers/ai-sdk-chat.js';
import { assemble } from './helpers/ai-sdk-raw.js';
import { inventoryAgent } from './http-fixtures.js';

/** The inventory run at each of its points: question, approval, completed, rejected. */
async function inventoryRun() {
  const agent = inventoryAgent();
  const question = await runTurn(agent, { input: 'Thaw one', runId: 'run-1' });
  const approval = await answerQuestion(agent, question.snapshot, { answers: ['K562'] });
  const completed = await approve(agent, approval.snapshot, {});
  const rejected = await reject(agent, approval.snapshot, { rationale: 'Out of stock' });
  return { agent, question, approval, completed, rejected };
}

async function expectAllValid(chunks: unknown[]): Promise<void> {
  for (const chunk of chunks) await expectValidChunk(chunk);
}

describe('toUIMessageChunks', () => {
  it('streams a turn as one message: steps, text, the question part, finish with metadata', async () => {
    const { agent, question } = await inventoryRun();
    const chunks = toUIMessageChunks(question, { agent });
    await expectAllValid(chunks);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      ...Array(7).fill('text-delta'),
      'text-end',
      'tool-input-available',
      'finish-step',
      'finish',
    ]);
    expect(chunks.at(-1)).toMatchObject({
      finishReason: 'tool-calls',
      messageMetadata: {
        turnkit: { runId: 'run-1', status: 'needs_input', pending: [{ kind: 'question' }] },
      },
    });
    expect(JSON.stringify(chunks)).not.toContain('snapshot');
    const withSnapshot = toUIMessageChunks(question, { agent, withSnapshot: true });
    expect(withSnapshot.at(-1)).toMatchObject({
      messageMetadata: { turnkit: { snapshot: question.snapshot } },
    });
  });

  it('sends a continuation only what the client lacks', async () => {
    const { agent, question, approval, completed } = await inventoryRun();
    const asked = await assemble(toUIMessageChunks(question, { agent }));
    const questionPart = asked.parts.find((part) => part.type === 'tool-AskUserQuestion') as {
      toolCallId: string;
    };
    const answeredParts = asked.parts.map((part) =>
      part === questionPart ? { ...part, state: 'output-available', output: { answers: ['K562'] } } : part,
    );
    const answered = { ...asked, parts: answeredParts } as typeof asked;
    const next = toUIMessageChunks(approval, { agent, continuing: answered });
    await expectAllValid(next);
    expect(
      next.filter((chunk) => 'toolCallId' in chunk && chunk.toolCallId === questionPart.toolCallId),
    ).toEqual([]);
    const shown = await assemble(next, answered);
    expect(shown.parts.at(-1)).toMatchObject({ type: 'tool-thaw_vials', state: 'approval-requested' });

    const decidedParts = shown.parts.map((part) =>
      part.type === 'tool-thaw_vials'
        ? { ...part, state: 'approval-responded', approval: { id: 'inventory:2', approved: true } }
        : part,
    );
    const last = toUIMessageChunks(completed, {
      agent,
      continuing: { ...shown, parts: decidedParts } as typeof shown,
    });
    await expectAllValid(last);
    expect(last.filter((chunk) => chunk.type.startsWith('tool-'))).toEqual([
      { type: 'tool-output-available', toolCallId: 'call_1_0', output: { thawed: ['K562'], count: 1 } },
    ]);
  });

  it('shows a rejection as tool-output-denied and a sub-agent approval as a synthetic part', async () => {
    const { agent, approval, rejected } = await inventoryRun();
    const shown = await assemble(toUIMessageChunks(approval, { agent }));
    const denied = toUIMessageChunks(rejected, { agent, continuing: shown });
    await expectAllValid(denied);
    expect(denied).toContainEqual({ type: 'tool-output-denied', toolCallId: 'call_1_0' });

    const lead = leadAgent(newCounts());
    const paused = await runTurn(lead, { input: 'Plan' });
    const chunks = toUIMessageChunks(paused, { agent: lead });
    await expectAllValid(chunks);
    expect(chunks).toContainEqual({
      type: 'tool-approval-request',
      approvalId: 'lead/researcher@call_0_0:1',
      toolCallId: 'lead/researcher@call_0_0:1',
    });
    // The sub-agent's own step and text are not shown: the parent's tool part stands for it.
    expect(chunks.filter((chunk) => chunk.type === 'start-step')).toHaveLength(1);
  });
  it("shows a tool's ctx.ask approval as a synthetic part, the call's own part open until it ends", async () => {
    const purge = defineTool({
      name: 'purge_rack',
      description: 'Empty a rack.',
      input: z.object({ rack: z.string() }),
      execute: async (input, ctx) => ctx.ask({ approval: { reason: `Empties rack ${input.rack}` } }, input),
      resume: async (_input, response) => ({ purged: response.kind === 'approval' && response.approved }),
    });
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'x',
      model: scriptedModel([{ toolCalls: [{ name: 'purge_rack', arguments: { rack: 'B2' } }] }, 'Purged.']),
      tools: [purge],
    });
    const paused = await runTurn(agent, { input: 'Purge B2' });
    const chunks = toUIMessageChunks(paused, { agent });
    await expectAllValid(chunks);
    const shown = await assemble(chunks);
    expect(shown.parts.filter((part) => part.type === 'tool-purge_rack')).toEqual([
      expect.objectContaining({ toolCallId: 'call_0_0', state: 'input-available', input: { rack: 'B2' } }),
      expect.objectContaining({
        toolCallId: 'inventory:1',
        state: 'approval-requested',
        input: { rack: 'B2' },
        approval: { id: 'inventory:1' },
      }),
    ]);
    expect(shown.metadata).toMatchObject({
      turnkit: { pending: [{ id: 'inventory:1', toolCallId: 'inventory:1' }] },
    });
    const approvedParts = shown.parts.map((part) =>
      'toolCallId' in part && part.toolCallId === 'inventory:1'
        ? { ...part, state: 'approval-responded', approval: { id: 'inventory:1', approved: true } }
        : part,
    );
    const approved = { ...shown, parts: approvedParts } as typeof shown;
    const done = await approve(agent, paused.snapshot, {});
    const last = await assemble(toUIMessageChunks(done, { agent, continuing: approved }), approved);
    expect(last.parts.find((part) => part.type === 'tool-purge_rack')).toMatchObject({
      state: 'output-available',
      output: { purged: true },
    });
  });
});

describe('toUIMessages', () => {
  it('gives messages that ai validates, at every point of a run', async () => {
    const { agent, question, approval, completed, rejected } = await inventoryRun();
    const asking = await runTurn(askingAgent(newCounts()), { input: 'Record' });
    const lead = leadAgent(newCounts());
    const bubbled = await runTurn(lead, { input: 'Plan' });
    const runs: [TurnResult, Parameters<typeof toUIMessages>[1]][] = [
      [question, { agent }],
      [approval, { agent }],
      [completed, { agent }],
      [rejected, { agent }],
      [asking, {}],
      [bubbled, { agent: lead }],
    ];
    for (const [result, options] of runs) {
      const messages = toUIMessages(result, options);
      await expect(validateUIMessages({ messages })).resolves.toBeDefined();
    }
    const denied = toUIMessages(rejected, { agent })
      .at(-1)!
      .parts.find((part) => part.type === 'tool-thaw_vials');
    expect(denied).toMatchObject({
      state: 'output-denied',
      approval: { approved: false, reason: 'Out of stock' },
    });
    expect(toUIMessages(asking).at(-1)!.parts.at(-1)).toMatchObject({
      type: 'tool-AskUserQuestion',
      toolCallId: 'inventory:1',
      state: 'input-available',
    });
  });

  it('names messages by run and position, the same on every read', async () => {
    const { agent, completed } = await inventoryRun();
    const messages = toUIMessages(completed, { agent });
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ['run-1-0', 'user'],
      ['run-1-1', 'assistant'],
    ]);
    expect(toUIMessages(completed, { agent })).toEqual(messages);
  });
});

describe('turnkitSendAutomaticallyWhen', () => {
  const assistant = (parts: UIMessageLike['parts'], pending: string[]): UIMessageLike => ({
    role: 'assistant',
    metadata: {
      turnkit: {
        runId: 'r',
        status: 'needs_input',
        pending: pending.map((id) => ({
          id,
          kind: 'question',
          toolCallId: id,
          agentPath: ['a'],
          expiresAt: null,
        })),
      },
    },
    parts,
  });

  it('re-posts once every pending part has an answer', () => {
    const open = { type: 'tool-record_thaw', toolCallId: 'call-1', state: 'input-available' };
    const asked = { type: 'tool-AskUserQuestion', toolCallId: 'q', state: 'input-available' };
    const form = { type: 'tool-AskUserQuestion', toolCallId: 'f', state: 'input-available' };
    const send = (parts: UIMessageLike['parts'], pending = ['q', 'f']) =>
      turnkitSendAutomaticallyWhen({ messages: [assistant(parts, pending)] });
    expect(send([open, asked, form])).toBe(false);
    expect(send([open, { ...asked, state: 'output-available' }, form])).toBe(false);
    expect(send([open, { ...asked, state: 'output-available' }, { ...form, state: 'output-error' }])).toBe(
      true,
    );
    expect(send([open, { ...asked, state: 'approval-responded' }, { ...form, state: 'output-denied' }])).toBe(
      true,
    );
    expect(
      send([
        open,
        { ...asked, state: 'output-available', preliminary: true },
        { ...form, state: 'output-error' },
      ]),
    ).toBe(false);
    expect(send([open, { ...asked, state: 'output-available' }], [])).toBe(false);
    expect(send([{ ...open, state: 'output-available' }], ['gone'])).toBe(false);
  });

  it('never re-posts after a user message or a message without TurnKit metadata', () => {
    expect(turnkitSendAutomaticallyWhen({ messages: [] })).toBe(false);
    expect(turnkitSendAutomaticallyWhen({ messages: [{ role: 'user', parts: [] }] })).toBe(false);
    expect(
      turnkitSendAutomaticallyWhen({ messages: [{ role: 'assistant', metadata: { other: 1 }, parts: [] }] }),
    ).toBe(false);
  });

  it('bundles for a browser from @turnkit/adapters/ai-sdk/client with no import at all', async () => {
    const entry = fileURLToPath(new URL('../src/protocols/ai-sdk-ui/client.ts', import.meta.url));
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
    });
    const code = result.outputFiles[0]!.text;
    expect(code).toContain('turnkitSendAutomaticallyWhen');
    expect(code).not.toMatch(/\bimport\b|\brequire\(/);
  });
});
