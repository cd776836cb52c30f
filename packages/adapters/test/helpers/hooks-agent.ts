/**
 * The agent of the hooks tests across stores and processes (DESIGN §26): one `charge` call guarded
 * by two beforeTool hooks — `gate` asks a person to review the call, `audit` runs after it — and a
 * final answer quoting the result. The worker that gets killed and the test process that takes over
 * build it from this one definition, each counting the hooks' and the tool's runs its own way.
 */
import { defineAgent, defineHook, defineTool } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

/** The call id of the charge. */
export const CHARGE_CALL_ID = 'call_charge';

/** What runs, by name: `gate` and `audit` (the hooks), `execute:<key>` (the tool). */
export type Count = (what: string) => Promise<void> | void;

/** The agent; `count` sees each hook and tool run (and may never return, inside `execute`). */
export function reviewedChargeAgent(count: Count) {
  const charge = defineTool({
    name: 'charge',
    description: 'Charge the card',
    input: z.object({ amount: z.number() }),
    // A call that may have run is asked about, never run again silently.
    onInDoubt: 'ask',
    execute: async ({ amount }, ctx) => {
      await count(`execute:${ctx.idempotencyKey}`);
      return { charged: amount };
    },
  });
  const gate = defineHook({
    name: 'gate',
    beforeTool: () => {
      void count('gate');
      return { ask: { reason: 'Charges are reviewed' } };
    },
  });
  const audit = defineHook({ name: 'audit', beforeTool: () => void count('audit') });
  return defineAgent({
    name: 'payments',
    instructions: 'You charge cards.',
    model: scriptedModel([
      { toolCalls: [{ id: CHARGE_CALL_ID, name: 'charge', arguments: { amount: 5 } }] },
      (request) => `Done: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [charge],
    hooks: [gate, audit],
    snapshot: { secret: 'hooks-processes-secret-of-32-characters!' },
  });
}

/** The agent with every run recorded in `runs`. */
export function countingReviewedAgent() {
  const runs: string[] = [];
  return { agent: reviewedChargeAgent((what) => void runs.push(what)), runs };
}
