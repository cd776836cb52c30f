/**
 * Handoffs that survive a dead worker (DESIGN §27, §21) on the file, Redis and Postgres stores: a
 * worker process plays triage, which looks a ticket up and hands the run to the freezer desk, and
 * is killed with SIGKILL inside the freezer's thaw. This process, given the root agent only, takes
 * the run over: it goes on in the freezer desk, the thaw in doubt is reconciled (not run again),
 * nothing triage did runs again, and the freezer hands back to triage, which answers.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSessions, type ToolMessage } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffWorkerConfig } from './fixtures/handoff-worker.js';
import { bundleProcesses } from './helpers/bundled-child.js';
import { handoffAgents, THAW_CALL_ID } from './helpers/handoff-agents.js';
import { LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, type StoreKind, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
let outdir: string;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'turnkit-handoff-worker-'));
  await bundleProcesses({ entries: { 'handoff-worker': 'fixtures/handoff-worker.ts' }, outdir });
});
afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** Starts the worker, collects what it ran until it is inside the thaw, kills it with SIGKILL. */
async function killedInsideThaw(config: HandoffWorkerConfig): Promise<{ ran: string[]; key: string }> {
  const child = spawn(process.execPath, [join(outdir, 'handoff-worker.mjs'), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ran: string[] = [];
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const message = JSON.parse(line) as { type: string; tool?: string; key?: string };
      if (message.type === 'ran') ran.push(message.tool!);
      if (message.type === 'executing') return { ran, key: message.key! };
    }
    throw new Error(`handoff worker ${child.pid} exited before the thaw (code ${child.exitCode})`);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

describe('a worker killed after a handoff', () => {
  for (const kind of ['file', 'redis', 'postgres'] as Exclude<StoreKind, 'memory'>[]) {
    it.skipIf(servers.missing(kind))(
      `is taken over with the root on the ${kind} store, and goes on in the agent handed to; nothing runs twice`,
      async () => {
        const backend = await sharedStores(kind, 'handoff-kill', 1, servers.urls[kind]);
        try {
          const store = backend.stores[0]!;
          const runId = `run_handoff_${Math.random().toString(36).slice(2, 10)}`;
          const worker = await killedInsideThaw({ address: backend.address!, leaseMs: LEASE_MS, runId });
          expect(worker.ran).toEqual(['look_up_ticket']);
          await leaseLapse(store, runId);

          const executed: string[] = [];
          const reconciled: string[] = [];
          const root = handoffAgents({
            onExecute: (tool) => void executed.push(tool),
            onReconcile: (key) => void reconciled.push(key),
          });
          const sessions = createSessions({ agent: root, store, leaseMs: LEASE_MS });
          expect((await sessions.get(runId)).activeAgent).toBe('freezer');
          const taken = await sessions.retry(runId);
          expect(taken.status).toBe('completed');
          expect(taken.activeAgent).toBe('triage');
          expect(taken.output).toBe('Back at triage: {"recorded":"K562","reconciled":true}');
          expect(executed).toEqual([]);
          expect(reconciled).toEqual([worker.key]);
          expect(
            taken.events.flatMap((event) => (event.type === 'handoff' ? [`${event.from}>${event.to}`] : [])),
          ).toEqual(['freezer>triage']);
          const results = taken.messages.filter((message): message is ToolMessage => message.role === 'tool');
          expect(results.map((message) => message.tool_call_id)).toEqual([
            'call_ticket',
            'call_freezer',
            THAW_CALL_ID,
            'call_back',
          ]);
          expect((await sessions.get(runId)).activeAgent).toBe('triage');
        } finally {
          await backend.teardown();
        }
      },
      30_000,
    );
  }
});
