/**
 * Tools that ask, under random sequences (fast-check): several calls of one step ask at once, one of
 * them twice; the human answers, cancels, lets things expire or sends a new message, in any order.
 * Whatever happens, every tool call gets exactly one result, `execute` runs once per call, and
 * `resume` runs once per answer — never for a cancelled, expired or superseded ask.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineAgent,
  defineTool,
  expire,
  type InteractionResponse,
  type PendingInteraction,
  respond,
  runTurn,
  TurnkitError,
  type TurnResult,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { expectOneResultPerCall } from './helpers.js';

type Counts = { execute: Map<string, number>; resume: Map<string, number> };
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function agentCounting(counts: Counts) {
  const form = defineTool({
    name: 'pick_box',
    description: 'asks for a box',
    input: z.object({}),
    execute: (_input, ctx) => {
      bump(counts.execute, ctx.toolCallId);
      return ctx.ask({
        input: { message: 'Box?', schema: z.object({ box: z.string().min(1) }) },
        timeoutMs: 1000,
      });
    },
    resume: (_input, response, ctx) => {
      bump(counts.resume, ctx.toolCallId);
      return { box: response.kind === 'input' ? response.value : null };
    },
  });
  const twice = defineTool({
    name: 'confirm_style',
    description: 'asks a question, then an approval',
    input: z.object({}),
    execute: (_input, ctx) => {
      bump(counts.execute, ctx.toolCallId);
      return ctx.ask({ questions: [{ question: 'Style?', header: 'Style', options: ['A', 'B'] }] }, 1);
    },
    resume: (_input, response, ctx) => {
      bump(counts.resume, ctx.toolCallId);
      if (response.kind === 'question') return ctx.ask({ approval: { reason: 'Apply it?' } }, 2);
      return { applied: response.kind === 'approval' && response.approved };
    },
  });
  const plain = defineTool({
    name: 'count',
    description: 'no questions',
    input: z.object({}),
    execute: (_input, ctx) => {
      bump(counts.execute, ctx.toolCallId);
      return 3;
    },
  });
  return defineAgent({
    name: 'props',
    instructions: 'test',
    model: scriptedModel(
      Array.from(
        { length: 12 },
        () => (request: { messages: { role: string }[] }) =>
          request.messages.some((message) => message.role === 'assistant')
            ? 'ok'
            : {
                toolCalls: [
                  { id: 'a', name: 'pick_box', arguments: {} },
                  { id: 'b', name: 'confirm_style', arguments: {} },
                  { id: 'c', name: 'count', arguments: {} },
                ],
              },
      ),
    ),
    tools: [form, twice, plain],
  });
}

type Op = { kind: 'good' | 'invalid' | 'cancel' | 'expire' | 'message'; pick: number };

function goodResponse(interaction: PendingInteraction, pick: number): InteractionResponse {
  switch (interaction.kind) {
    case 'input':
      return { id: interaction.id, type: 'input', value: { box: `B${pick}` } };
    case 'question':
      return { id: interaction.id, type: 'answer', answers: pick % 2 ? 'A' : 'B' };
    case 'approval':
    case 'budget':
    case 'in_doubt':
    case 'review':
      return pick % 2 ? { id: interaction.id, type: 'approve' } : { id: interaction.id, type: 'reject' };
  }
}

function invalidResponse(interaction: PendingInteraction): InteractionResponse {
  return interaction.kind === 'input'
    ? { id: interaction.id, type: 'input', value: { box: '' } }
    : { id: interaction.id, type: 'input', value: 'wrong kind' };
}

describe('tools that ask under random sequences (property)', () => {
  it('give every tool call exactly one result; execute once per call, resume once per answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom<Op['kind']>(
              'good',
              'good',
              'good',
              'invalid',
              'cancel',
              'expire',
              'message',
            ),
            pick: fc.nat(9),
          }),
          { maxLength: 8 },
        ),
        async (ops) => {
          const counts: Counts = { execute: new Map(), resume: new Map() };
          const agent = agentCounting(counts);
          const t0 = Date.parse('2026-01-01T00:00:00Z');
          let clock = t0;
          const options = () => ({ now: new Date(clock) });
          let result: TurnResult = await runTurn(agent, { input: 'go' }, options());
          const answeredPerCall = new Map<string, number>();
          for (const op of ops) {
            if (result.status !== 'needs_input') break;
            const target = result.pending[op.pick % result.pending.length]!;
            let next: Promise<TurnResult>;
            if (op.kind === 'good')
              next = respond(agent, result.snapshot, [goodResponse(target, op.pick)], options());
            else if (op.kind === 'invalid')
              next = respond(agent, result.snapshot, [invalidResponse(target)], options());
            else if (op.kind === 'cancel')
              next = respond(agent, result.snapshot, [{ id: target.id, type: 'cancel' }], options());
            else if (op.kind === 'message')
              next = runTurn(agent, { snapshot: result.snapshot, input: 'new plan' }, options());
            else {
              clock += 2000;
              next = expire(agent, result.snapshot, options());
            }
            try {
              result = await next;
            } catch (error) {
              if (!TurnkitError.isInstance(error)) throw error;
              expect(op.kind).toBe('invalid');
              continue;
            }
            for (const event of result.events) {
              if (
                event.type === 'interaction_resolved' &&
                ['answered', 'approved', 'rejected'].includes(event.decision)
              ) {
                bump(answeredPerCall, event.toolCallId);
              }
            }
            expectOneResultPerCall(result);
          }
          expectOneResultPerCall(result);
          for (const id of ['a', 'b', 'c']) expect(counts.execute.get(id) ?? 0, `execute ${id}`).toBe(1);
          for (const id of ['a', 'b']) {
            expect(counts.resume.get(id) ?? 0, `resume ${id}`).toBe(answeredPerCall.get(id) ?? 0);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
