/**
 * The cross-process part of issue 11's load test (DESIGN §12), with real worker processes
 * (fixtures/lease-worker.ts):
 * - two workers whose wall clocks are 5 minutes ahead and 5 minutes behind approve the same runs at
 *   once, again and again, while each turn outlasts the lease: the store alone judges leases, so
 *   the tool executes once per run across both processes;
 * - a worker SIGKILLed inside a slow tool holds its run until its lease lapses on the store's clock
 *   (requests meanwhile are refused or read `running`), and then the run is recovered: the tool
 *   runs a second time at most, with the same idempotency key, and the run completes;
 * - a worker SIGKILLed in the model call after its tool finished (issue 26 item 4): it recorded the
 *   tool's result before that call, so the takeover goes on from there and never runs the tool again.
 */
import { createSessions, type SessionResult, type SnapshotStore } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bump,
  countOutcomes,
  outcomeOf,
  sleep,
  slowApprovalAgent,
  THAW_CALL_ID,
  unexpectedOutcomes,
} from './helpers/lease-agent.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';
import {
  bundleWorker,
  nextOfType,
  startWorker,
  type Worker,
  type WorkerBundle,
} from './helpers/lease-workers.js';

const MINUTES = 60_000;
const servers = findServers();

const POLL_MS = 50;

/** Waits until the lease of `runId` is no longer live on the store's clock, at most four leases. */
async function leaseLapse(store: SnapshotStore, runId: string, leaseMs: number): Promise<void> {
  let polls = 0;
  while ((await store.get(runId))?.lease?.live) {
    expect(++polls).toBeLessThan((4 * leaseMs) / POLL_MS);
    await sleep(POLL_MS);
  }
}

/** The lease tests' agent, instant, counting its executions and finishes by idempotency key. */
function countingAgent() {
  const executions: Record<string, number> = {};
  const finishes: Record<string, number> = {};
  const agent = slowApprovalAgent({
    toolMs: 0,
    onExecute: (key) => bump(executions, key),
    onFinish: (key) => bump(finishes, key),
  });
  return { agent, executions, finishes };
}

let bundle: WorkerBundle;
beforeAll(async () => {
  bundle = await bundleWorker();
});
afterAll(async () => {
  await bundle?.remove();
});

describe('load: two worker processes whose clocks are 10 minutes apart', () => {
  const LEASE_MS = 300;
  const RUNS = 8;
  const config = { leaseMs: LEASE_MS, toolMs: 3 * LEASE_MS, everyMs: LEASE_MS / 2, duplicates: 7 };

  for (const kind of ['redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: both approve ${RUNS} runs ${config.duplicates + 1} times, turns of 3 leases: 0 double executions`,
      async () => {
        const backend = await sharedStores(kind, 'lease-skew', 1, servers.urls[kind]);
        const workers: Worker[] = [];
        try {
          // The test's own sessions start the runs and read them back; they execute nothing.
          const sessions = createSessions({
            agent: slowApprovalAgent({ toolMs: 0 }),
            store: backend.stores[0]!,
          });
          for (const skewMs of [+5 * MINUTES, -5 * MINUTES]) {
            workers.push(await startWorker(bundle, { ...config, address: backend.address! }, skewMs));
          }
          expect(workers[0]!.startedAt - Date.now()).toBeGreaterThan(4 * MINUTES);
          expect(workers[1]!.startedAt - Date.now()).toBeLessThan(-4 * MINUTES);
          const runIds = await Promise.all(
            Array.from({ length: RUNS }, async () => (await sessions.start('Thaw one K562 vial')).runId),
          );

          for (const worker of workers) worker.send({ op: 'approve', runIds });
          const reports = await Promise.all(workers.map((worker) => nextOfType(worker, 'done')));

          const outcomes = runIds.map((runId) => reports.flatMap((report) => report.outcomes[runId] ?? []));
          console.log(`[load-lease-processes] ${kind}:`, JSON.stringify(countOutcomes(outcomes.flat())));
          expect(runIds.flatMap((runId, index) => unexpectedOutcomes(runId, outcomes[index]!))).toEqual([]);
          // Executions as each process counted them, added up: one per run, never two.
          const executions: Record<string, number> = {};
          for (const [key, count] of reports.flatMap((report) => Object.entries(report.executions))) {
            bump(executions, key, count);
          }
          expect(executions).toEqual(
            Object.fromEntries(runIds.map((runId) => [`${runId}:${THAW_CALL_ID}`, 1])),
          );
          for (const runId of runIds) expect((await sessions.get(runId)).status).toBe('completed');
        } finally {
          await Promise.all(workers.map((worker) => worker.stop()));
          await backend.teardown();
        }
      },
    );
  }
});

describe('a worker killed with SIGKILL inside a slow tool', () => {
  const LEASE_MS = 1_500;
  const cases = [
    { kind: 'file', recoverWith: 'retry', skewMs: 0 },
    { kind: 'redis', recoverWith: 'approve', skewMs: +5 * MINUTES },
    { kind: 'postgres', recoverWith: 'retry', skewMs: -5 * MINUTES },
  ] as const;

  for (const { kind, recoverWith, skewMs } of cases) {
    it.skipIf(servers.missing(kind))(
      `${kind}: holds the run until its lease lapses, then sessions.${recoverWith}() finishes it (clock off by ${skewMs / MINUTES} min)`,
      async () => {
        const backend = await sharedStores(kind, 'lease-kill', 1, servers.urls[kind]);
        const store = backend.stores[0]!;
        const { agent, executions, finishes } = countingAgent();
        const config = { leaseMs: LEASE_MS, toolMs: 10 * MINUTES, duplicates: 0, everyMs: 0 };
        let worker: Worker | undefined;
        try {
          const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
          worker = await startWorker(bundle, { ...config, address: backend.address! }, skewMs);
          const { runId } = await sessions.start('Thaw one K562 vial');
          const key = `${runId}:${THAW_CALL_ID}`;
          worker.send({ op: 'approve', runIds: [runId] });
          expect(await nextOfType(worker, 'executing')).toEqual({ type: 'executing', key });
          await worker.kill();

          // Its last renewal was at most a third of a lease ago: the run is still the dead worker's.
          const during = await Promise.allSettled([
            sessions.get(runId),
            sessions.approve(runId),
            sessions.retry(runId),
          ]);
          expect(during.map(outcomeOf)).toEqual(['repeat:running', 'repeat:running', 'conflict']);
          expect((await store.get(runId))?.lease?.live).toBe(true);
          expect(executions).toEqual({});

          // It lapses within a lease of the kill, on the store's clock; four leases is the margin.
          await leaseLapse(store, runId, LEASE_MS);
          const recovered: SessionResult =
            recoverWith === 'retry' ? await sessions.retry(runId) : await sessions.approve(runId);
          expect(recovered.status).toBe('completed');
          expect(recovered.output).toBe(`Recorded ${key}.`);
          // The killed worker's execution, then this one: twice, with the same key, and nothing more.
          expect(executions).toEqual({ [key]: 1 });
          expect(finishes).toEqual({ [key]: 1 });
          expect((await sessions.get(runId)).status).toBe('completed');
        } finally {
          await worker?.stop();
          await backend.teardown();
        }
      },
    );
  }
});

describe('a worker killed with SIGKILL in the model call after its tool finished', () => {
  const LEASE_MS = 1_500;

  for (const kind of ['file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: the takeover goes on after the finished tool and never runs it again`,
      async () => {
        const backend = await sharedStores(kind, 'lease-model-kill', 1, servers.urls[kind]);
        const store = backend.stores[0]!;
        const { agent, executions, finishes } = countingAgent();
        const config = { leaseMs: LEASE_MS, toolMs: 0, modelMs: 10 * MINUTES, duplicates: 0, everyMs: 0 };
        let worker: Worker | undefined;
        try {
          const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
          worker = await startWorker(bundle, { ...config, address: backend.address! }, 0);
          const { runId } = await sessions.start('Thaw one K562 vial');
          const key = `${runId}:${THAW_CALL_ID}`;
          worker.send({ op: 'approve', runIds: [runId] });
          expect(await nextOfType(worker, 'executing')).toEqual({ type: 'executing', key });
          expect(await nextOfType(worker, 'finishing')).toEqual({ type: 'finishing', key });
          await worker.kill();

          await leaseLapse(store, runId, LEASE_MS);
          const recovered = await sessions.retry(runId);
          expect(recovered.status).toBe('completed');
          expect(recovered.output).toBe(`Recorded ${key}.`);
          // The dead worker executed the tool once; this process never did.
          expect(executions).toEqual({});
          expect(finishes).toEqual({ [key]: 1 });
          expect(recovered.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
        } finally {
          await worker?.stop();
          await backend.teardown();
        }
      },
    );
  }
});
