/**
 * The agents of the handoff process tests (DESIGN §27): `triage` looks a ticket up and hands the
 * run to `freezer`, which records a thaw and hands it back. The worker that is killed inside the
 * thaw and the process that takes the run over both build them from this one definition, each with
 * its own hooks, and resume with the root (`triage`) only.
 */
import { defineAgent, defineTool } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

/** The secret both processes sign the run's snapshots with. */
export const HANDOFF_SECRET = 'handoff-processes-secret-of-32-characters';

/** The call id of the thaw, and of the two handoffs. */
export const THAW_CALL_ID = 'call_thaw';

export interface HandoffHooks {
  /** Runs inside each tool's `execute` (the thaw's may never return). */
  onExecute(tool: string, key: string): Promise<void> | void;
  /** Runs when the thaw is found in doubt and reconciled. */
  onReconcile?(key: string): void;
}

export function handoffAgents(hooks: HandoffHooks) {
  const lookUp = defineTool({
    name: 'look_up_ticket',
    description: 'Look the ticket up',
    input: z.object({}),
    execute: async (_input, ctx) => {
      await hooks.onExecute('look_up_ticket', ctx.idempotencyKey);
      return { ticket: 42 };
    },
  });
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw',
    input: z.object({ cellLine: z.string() }),
    // A thaw found in doubt is looked up, never recorded twice.
    onInDoubt: (input, ctx) => {
      hooks.onReconcile?.(ctx.idempotencyKey);
      return { recorded: input.cellLine, reconciled: true };
    },
    execute: async ({ cellLine }, ctx) => {
      await hooks.onExecute('record_thaw', ctx.idempotencyKey);
      return { recorded: cellLine };
    },
  });
  const snapshot = { secret: HANDOFF_SECRET };
  // Both models play by the number of assistant messages in the shared transcript.
  let triage: ReturnType<typeof defineAgent>;
  const freezer = defineAgent({
    name: 'freezer',
    instructions: 'You are the LN2 freezer desk.',
    model: scriptedModel([
      'unused',
      { toolCalls: [{ id: THAW_CALL_ID, name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
      { toolCalls: [{ id: 'call_back', name: 'transfer_to_triage', arguments: { reason: 'thawed' } }] },
    ]),
    tools: [thaw],
    handoffs: () => [triage],
    snapshot,
  });
  triage = defineAgent({
    name: 'triage',
    instructions: 'You route requests.',
    model: scriptedModel([
      {
        toolCalls: [
          { id: 'call_ticket', name: 'look_up_ticket', arguments: {} },
          { id: 'call_freezer', name: 'transfer_to_freezer', arguments: {} },
        ],
      },
      'unused',
      'unused',
      (request) => `Back at triage: ${request.messages.at(-3)?.content}`,
    ]),
    tools: [lookUp],
    handoffs: [freezer],
    snapshot,
  });
  return triage;
}
