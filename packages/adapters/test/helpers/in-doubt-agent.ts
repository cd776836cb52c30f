/**
 * The agent of the tools-in-doubt process tests (DESIGN §21): one `charge` call, then a final answer
 * quoting its result. Both the worker that gets killed inside `execute` and the test process that
 * takes the run over build it from this one definition, each with its own `execute` hook.
 */
import { defineAgent, defineTool, type InDoubtPolicy } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

export type InDoubtCase = 'retry' | 'ask' | 'reconcile';

/** The secret both the killed worker and the process that takes over sign the run's snapshots with. */
export const IN_DOUBT_SECRET = 'in-doubt-processes-secret-of-32-characters';

/** The call id of the charge, and the input it is made with. */
export const CHARGE_CALL_ID = 'call_charge';

/** The agent; `onExecute` runs (and may never return) inside `execute`, `onReconcile` inside the reconcile function. */
export function chargeAgent(
  policy: InDoubtCase,
  hooks: {
    onExecute: (key: string) => Promise<void> | void;
    onReconcile?: (key: string) => void;
  },
) {
  const onInDoubt: InDoubtPolicy<{ amount: number }, unknown> =
    policy === 'reconcile'
      ? (input, ctx) => {
          hooks.onReconcile?.(ctx.idempotencyKey);
          return { charged: input.amount, reconciled: true };
        }
      : policy;
  const charge = defineTool({
    name: 'charge',
    description: 'Charge the card',
    input: z.object({ amount: z.number() }),
    onInDoubt,
    execute: async ({ amount }, ctx) => {
      await hooks.onExecute(ctx.idempotencyKey);
      return { charged: amount };
    },
  });
  return defineAgent({
    name: 'payments',
    instructions: 'You charge cards.',
    model: scriptedModel([
      { toolCalls: [{ id: CHARGE_CALL_ID, name: 'charge', arguments: { amount: 5 } }] },
      (request) => `Done: ${request.messages.at(-1)?.content}`,
      // After a message (`send`): the model replies to it.
      (request) => `Done: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [charge],
    // Signed, so an answer link can be minted for its in_doubt ask.
    snapshot: { secret: IN_DOUBT_SECRET },
  });
}

/** The agent as the process that takes a run over builds it: each `execute` and reconcile recorded by key. */
export function countingChargeAgent(policy: InDoubtCase) {
  const executions: string[] = [];
  const reconciled: string[] = [];
  const agent = chargeAgent(policy, {
    onExecute: (key) => void executions.push(key),
    onReconcile: (key) => void reconciled.push(key),
  });
  return { agent, executions, reconciled };
}
