/**
 * Tools in doubt across processes (DESIGN §21): a worker process is killed with SIGKILL inside a
 * tool's `execute` (it recorded the call `started` before running it). Once its lease lapses on the
 * store's clock, this process takes the run over (`retry`) with the same agent definition:
 * - `onInDoubt: 'ask'`: the tool does not run again; the run pauses on an `in_doubt` interaction,
 *   and runs the tool again (once) only when a human approves;
 * - a reconcile function: the tool never runs again, and the reconciled result is in the transcript;
 * - `'retry'` (default): the tool runs again, once, with the same idempotency key.
 */
import { createSessions, type SessionResult } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { CHARGE_CALL_ID, countingChargeAgent, type InDoubtCase } from './helpers/in-doubt-agent.js';
import { bundleInDoubtWorker, killedInsideExecute, LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
bundleInDoubtWorker();
const inDoubtEvents = (result: SessionResult) =>
  result.events.filter((event) => event.type === 'tool_in_doubt');
const chargeResult = (result: SessionResult) =>
  result.messages.find((message) => message.role === 'tool' && message.tool_call_id === CHARGE_CALL_ID)
    ?.content;

describe('a worker killed with SIGKILL inside execute: the call is in doubt', () => {
  for (const kind of ['file', 'postgres'] as const) {
    for (const policy of ['ask', 'reconcile', 'retry'] as const satisfies readonly InDoubtCase[]) {
      it.skipIf(servers.missing(kind))(
        `${kind}, onInDoubt ${policy}`,
        async () => {
          const backend = await sharedStores(kind, `in-doubt-${policy}`, 1, servers.urls[kind]);
          try {
            const store = backend.stores[0]!;
            const runId = `run_in_doubt_${policy}_${Date.now().toString(36)}`;
            const key = await killedInsideExecute({
              address: backend.address!,
              leaseMs: LEASE_MS,
              policy,
              runId,
            });
            expect(key).toBe(`${runId}:${CHARGE_CALL_ID}`);
            // Its claim, with the call marked started, is what it left in the store.
            const left = JSON.parse((await store.get(runId))!.snapshot);
            expect(left.state.context.step).toMatchObject([{ toolCallId: CHARGE_CALL_ID, started: true }]);
            await leaseLapse(store, runId);

            const { agent, executions, reconciled } = countingChargeAgent(policy);
            const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
            const taken = await sessions.retry(runId);
            expect(inDoubtEvents(taken)).toMatchObject([{ toolCallId: CHARGE_CALL_ID, policy }]);

            if (policy === 'ask') {
              expect(taken.status).toBe('needs_input');
              expect(taken.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
              expect(executions).toEqual([]);
              // Reading it again, or another retry, runs nothing: it waits for the human.
              expect((await sessions.get(runId)).status).toBe('needs_input');
              expect(executions).toEqual([]);
              const approved = await sessions.approve(runId);
              expect(approved.status).toBe('completed');
              expect(executions).toEqual([key]);
              expect(chargeResult(approved)).toBe('{"charged":5}');
            } else if (policy === 'reconcile') {
              expect(taken.status).toBe('completed');
              expect(executions).toEqual([]);
              expect(reconciled).toEqual([key]);
              expect(chargeResult(taken)).toBe('{"charged":5,"reconciled":true}');
              expect(taken.output).toBe('Done: {"charged":5,"reconciled":true}');
            } else {
              expect(taken.status).toBe('completed');
              expect(executions).toEqual([key]);
              expect(chargeResult(taken)).toBe('{"charged":5}');
            }
            const final = await sessions.get(runId);
            expect(final.status).toBe('completed');
            expect(final.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
          } finally {
            await backend.teardown();
          }
        },
        30_000,
      );
    }
  }
});
