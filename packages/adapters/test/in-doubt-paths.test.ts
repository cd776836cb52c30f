/**
 * Every path that plays a run again after its worker was killed with SIGKILL inside a tool (DESIGN
 * §21, round 4), on the file, Redis and Postgres stores, counting `execute` calls: stop then retry,
 * stop then a message, a message alone, a fork at every kept point, and an answer link used twice. Under `ask` and a reconcile
 * function the charge never runs again without a person's approval; it is never told "dropped".
 * (The takeover by `retry` is in-doubt-processes.test.ts; the same paths in one process, with four
 * eyes, quorum and answer links, are core's in-doubt-paths tests.)
 */
import { createSessions, type SessionResult } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { CHARGE_CALL_ID, countingChargeAgent, type InDoubtCase } from './helpers/in-doubt-agent.js';
import { bundleInDoubtWorker, killedInsideExecute, LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, type StoreKind, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
bundleInDoubtWorker();

const chargeResult = (result: SessionResult) =>
  result.messages.find((message) => message.role === 'tool' && message.tool_call_id === CHARGE_CALL_ID)
    ?.content;
const inDoubtPolicies = (result: SessionResult) =>
  result.events.flatMap((event) => (event.type === 'tool_in_doubt' ? [event.policy] : []));

type Path = 'stop+retry' | 'stop+send' | 'send' | 'fork' | 'link';

/** Kills a worker inside the charge on a fresh backend, then plays `path` from this process. */
async function afterKill(
  kind: Exclude<StoreKind, 'memory'>,
  policy: Exclude<InDoubtCase, 'retry'>,
  path: Path,
) {
  const backend = await sharedStores(kind, `in-doubt-path-${policy}`, 1, servers.urls[kind]);
  try {
    const store = backend.stores[0]!;
    const runId = `run_path_${policy}_${Math.random().toString(36).slice(2, 10)}`;
    const key = await killedInsideExecute({ address: backend.address!, leaseMs: LEASE_MS, policy, runId });
    await leaseLapse(store, runId);
    const { agent, executions, reconciled } = countingChargeAgent(policy);
    const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
    const expectNothingRan = () => expect(executions).toEqual([]);
    const expectReconciledOnce = (result: SessionResult) => {
      expect(reconciled).toEqual([key]);
      expect(chargeResult(result)).toBe('{"charged":5,"reconciled":true}');
    };

    if (path === 'fork') {
      const points = await sessions.history(runId);
      const started = points.findIndex((point) => point.reason === 'step');
      expect(started).toBeGreaterThan(0);
      for (const point of points.slice(started)) {
        const fork = await sessions.fork(runId, { at: point.version });
        // Whatever the policy: the charge may have run in the source, under the source's key.
        expect(fork.status, `fork at v${point.version}`).toBe('needs_input');
        expect(fork.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
        expect(inDoubtPolicies(fork)).toEqual(['ask']);
      }
      expectNothingRan();
      expect(reconciled).toEqual([]);
      return;
    }
    if (path === 'link') {
      // The in_doubt ask (or the reconciled result) of the takeover; a one-click link approves it once.
      const taken = await sessions.retry(runId);
      if (policy === 'reconcile') {
        expect(taken.status).toBe('completed');
        expectReconciledOnce(taken);
        return;
      }
      const token = await sessions.answerLink(runId, taken.pending[0]!.id, {
        ttlMs: 60_000,
        response: { type: 'approve' },
      });
      const uses = await Promise.allSettled([sessions.answerWithLink(token), sessions.answerWithLink(token)]);
      expect(uses.filter((use) => use.status === 'fulfilled')).toHaveLength(1);
      expect(executions).toEqual([key]);
      expect((await sessions.get(runId)).status).toBe('completed');
      return;
    }
    if (path.startsWith('stop')) {
      const stopped = await sessions.stop(runId);
      expect(stopped.status).toBe('aborted');
      expectNothingRan();
    }
    if (path.endsWith('retry')) {
      const retried = await sessions.retry(runId);
      expect(inDoubtPolicies(retried)).toEqual([policy]);
      expectNothingRan();
      if (policy === 'ask') {
        expect(retried.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
        const approved = await sessions.approve(runId);
        expect(approved.status).toBe('completed');
        expect(executions).toEqual([key]);
      } else {
        expect(retried.status).toBe('completed');
        expectReconciledOnce(retried);
      }
      return;
    }
    const sent = await sessions.send(runId, 'never mind');
    expect(sent.status).toBe('completed');
    expectNothingRan();
    expect(chargeResult(sent)).not.toContain('superseded_by_user_message');
    expect(sent.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    if (policy === 'ask') expect(JSON.parse(chargeResult(sent)!).error_code).toBe('tool_in_doubt');
    else expectReconciledOnce(sent);
    expect(sent.output).toBe('Done: never mind');
  } finally {
    await backend.teardown();
  }
}

describe('after kill -9 inside a tool, every path that plays the run again', () => {
  for (const kind of ['file', 'redis', 'postgres'] as const) {
    for (const policy of ['ask', 'reconcile'] as const) {
      for (const path of ['stop+retry', 'stop+send', 'send', 'fork', 'link'] as const) {
        it.skipIf(servers.missing(kind))(
          `${kind}, onInDoubt ${policy}: ${path}`,
          () => afterKill(kind, policy, path),
          30_000,
        );
      }
    }
  }
});
