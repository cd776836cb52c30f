/**
 * Tools in doubt across processes (DESIGN §21): a worker process is killed with SIGKILL inside a
 * tool's `execute` (it recorded the call `started` before running it). Once its lease lapses on the
 * store's clock, this process takes the run over (`retry`) with the same agent definition:
 * - `onInDoubt: 'ask'`: the tool does not run again; the run pauses on an `in_doubt` interaction,
 *   and runs the tool again (once) only when a human approves;
 * - a reconcile function: the tool never runs again, and the reconciled result is in the transcript;
 * - `'retry'` (default): the tool runs again, once, with the same idempotency key.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSessions, type SessionResult, type SnapshotStore } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InDoubtWorkerConfig } from './fixtures/in-doubt-worker.js';
import { bundleProcesses } from './helpers/bundled-child.js';
import { CHARGE_CALL_ID, chargeAgent, type InDoubtCase } from './helpers/in-doubt-agent.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
const LEASE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let outdir: string;
beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'turnkit-in-doubt-worker-'));
  await bundleProcesses({ entries: { 'in-doubt-worker': 'fixtures/in-doubt-worker.ts' }, outdir });
});
afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** Starts the worker on `runId`, waits until it is inside `execute`, kills it with SIGKILL; returns the key it ran with. */
async function killedInsideExecute(config: InDoubtWorkerConfig): Promise<string> {
  const child = spawn(process.execPath, [join(outdir, 'in-doubt-worker.mjs'), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const message = JSON.parse(line) as { type: string; key?: string };
      if (message.type === 'executing') return message.key!;
    }
    throw new Error(`in-doubt worker ${child.pid} exited before executing (code ${child.exitCode})`);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Waits until the killed worker's lease is no longer live on the store's clock (at most four leases). */
async function leaseLapse(store: SnapshotStore, runId: string): Promise<void> {
  for (let polls = 0; (await store.get(runId))?.lease?.live; polls++) {
    expect(polls).toBeLessThan((4 * LEASE_MS) / 50);
    await sleep(50);
  }
}

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

            const executions: string[] = [];
            const reconciled: string[] = [];
            const agent = chargeAgent(policy, {
              onExecute: (runKey) => void executions.push(runKey),
              onReconcile: (runKey) => void reconciled.push(runKey),
            });
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
