/**
 * Agents for the `aiSdkHandler` tests whose interactions are not a top-level call's own part: a
 * tool that asks mid-execution (`ctx.ask`: a question, then a form from its `resume`), and a lead
 * agent whose sub-agent's approval bubbles up. Each counts what ran, so a test can check that
 * nothing ran twice.
 */
import { type Agent, agentTool, defineAgent, defineTool } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';
import { lastToolResult } from '../http-fixtures.js';

/** What the agents did. */
export interface Counts {
  executions: number;
  resumes: number;
  orders: string[];
}

export const newCounts = (): Counts => ({ executions: 0, resumes: 0, orders: [] });

/** `record_thaw` asks which box (a question), then how many vials (a form), then records. */
export function askingAgent(counts: Counts, options: { secret?: string } = {}): Agent {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw; asks which box, then how many vials.',
    input: z.object({ cellLine: z.string() }),
    execute: async ({ cellLine }, ctx) => {
      counts.executions++;
      return ctx.ask(
        {
          questions: [
            {
              question: `Two boxes hold ${cellLine}: which one?`,
              header: 'Box',
              options: [
                { label: 'B2-14', description: 'Rack B, upper shelf' },
                { label: 'B2-15', description: 'Rack B, lower shelf' },
              ],
            },
          ],
        },
        { cellLine },
      );
    },
    resume: async (_input, response, ctx) => {
      counts.resumes++;
      if (response.kind === 'question') {
        const box = response.answers.Box;
        const label = box && 'selected' in box ? box.selected[0] : undefined;
        return ctx.ask(
          { input: { message: 'How many vials?', schema: z.object({ vials: z.number().int().min(1) }) } },
          { ...(response.state as { cellLine: string }), box: label },
        );
      }
      if (response.kind !== 'input') throw new Error(`unexpected ${response.kind}`);
      return { ...(response.state as object), ...(response.value as { vials: number }) };
    },
  });
  return defineAgent({
    name: 'inventory',
    instructions: 'You manage an LN2 freezer.',
    model: scriptedModel([
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
      (request) => `Recorded: ${lastToolResult(request)}`,
    ]),
    tools: [recordThaw],
    ...(options.secret ? { snapshot: { secret: options.secret } } : {}),
  });
}

/** `lead` delegates to `researcher`, whose `order_medium` needs approval (bubbled to the human). */
export function leadAgent(counts: Counts): Agent {
  const orderMedium = defineTool({
    name: 'order_medium',
    description: 'Order a culture medium.',
    input: z.object({ medium: z.string() }),
    needsApproval: (input) => `Orders ${input.medium} on the lab's account`,
    execute: async ({ medium }) => {
      counts.orders.push(medium);
      return { ordered: medium };
    },
  });
  const researcher = defineAgent({
    name: 'researcher',
    instructions: 'You order reagents.',
    model: scriptedModel([
      { text: 'Ordering.', toolCalls: [{ name: 'order_medium', arguments: { medium: 'RPMI-1640' } }] },
      (request) => `Ordered: ${lastToolResult(request)}`,
    ]),
    tools: [orderMedium],
  });
  return defineAgent({
    name: 'lead',
    instructions: 'You plan experiments and delegate orders.',
    model: scriptedModel([
      {
        text: 'Asking the researcher.',
        toolCalls: [{ name: 'researcher', arguments: { input: 'Order RPMI' } }],
      },
      (request) => `Plan ready. ${lastToolResult(request)}`,
    ]),
    tools: [agentTool(researcher, { questions: 'bubble' })],
  });
}
