/**
 * The charge agent of the tools-in-doubt tests (DESIGN §21), over the memory store: its first
 * `execute` never returns (its worker is as good as dead), later ones return. `stalledRun` leaves a
 * run whose worker stalls inside that first `execute` and stops renewing its lease.
 */
import { z } from 'zod';
import {
  type AgentConfig,
  type ApprovalPolicy,
  createSessions,
  defineTool,
  type InDoubtPolicy,
  type SnapshotStore,
} from '../src/index.js';
import { makeAgent } from './helpers.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const leaseMs = 60;

/** Resolves when the first run of a charge agent's tool (by its `runs` list) is inside `execute`. */
export const entered = new WeakMap<string[], () => void>();

/** A charge tool whose first run never ends (its worker is as good as dead); later runs return. */
export function chargeAgent(
  policy: InDoubtPolicy<{ amount: number }, unknown> | undefined,
  runs: string[],
  options: {
    /** A four-eyes charge: `needsApproval` with these rules. */
    approval?: ApprovalPolicy<{ amount: number }, unknown>;
    /** Whether the first run stalls (default true). */
    stall?: boolean;
    agent?: Partial<AgentConfig>;
  } = {},
) {
  const { approval, stall = true } = options;
  const charge = defineTool({
    name: 'charge',
    description: 'Charge the card',
    input: z.object({ amount: z.number() }),
    ...(policy !== undefined ? { onInDoubt: policy } : {}),
    ...(approval !== undefined ? { needsApproval: true, approval } : {}),
    execute: async ({ amount }, ctx) => {
      runs.push(ctx.idempotencyKey);
      if (stall && runs.length === 1) {
        entered.get(runs)?.();
        await new Promise(() => undefined);
      }
      return { charged: amount };
    },
  });
  return makeAgent(
    [
      { toolCalls: [{ id: 'call_charge', name: 'charge', arguments: { amount: 5 } }] },
      (request) => `Done: ${request.messages.at(-1)?.content}`,
      (request) => `Done: ${request.messages.at(-1)?.content}`,
    ],
    { ...options.agent, tools: [charge] },
  );
}

/** Starts a run on a worker that stalls in `execute` and stops renewing; returns its run id once its lease lapsed. */
export async function stalledRun(
  agent: ReturnType<typeof chargeAgent>,
  store: SnapshotStore,
  runs: string[],
  approvedBy?: { requester: string; approvers: string[] },
): Promise<string> {
  const dead: SnapshotStore = { ...store, renew: () => Promise.reject(new Error('ETIMEDOUT')) };
  const runId = `run_in_doubt_${Math.random().toString(36).slice(2)}`;
  const inside = new Promise<void>((resolve) => entered.set(runs, resolve));
  const worker = createSessions({ agent, store: dead, leaseMs });
  if (approvedBy) {
    // The requester starts it; the last approval is the turn whose worker stalls.
    await createSessions({ agent, store, leaseMs }).start(
      { input: 'charge 5', runId },
      { principal: approvedBy.requester },
    );
    const last = approvedBy.approvers.length - 1;
    for (const principal of approvedBy.approvers.slice(0, last)) {
      await createSessions({ agent, store, leaseMs }).approve(runId, {}, { principal });
    }
    void worker.approve(runId, {}, { principal: approvedBy.approvers[last] }).catch(() => undefined);
  } else {
    void worker.start({ input: 'charge 5', runId }).catch(() => undefined);
  }
  await inside;
  // Its lease lapses on the store's clock (it renews no more).
  while ((await store.get(runId))?.lease?.live) await sleep(leaseMs / 4);
  return runId;
}
