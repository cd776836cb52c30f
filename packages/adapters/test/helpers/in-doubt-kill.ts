/**
 * The kill -9 of the tools-in-doubt process tests (DESIGN §21): a worker process (fixtures/
 * in-doubt-worker.ts) plays the charge agent over its own client of a shared store and is killed
 * with SIGKILL once inside `execute`; the test then waits until its lease lapsed on the store's
 * clock and plays the run again from this process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SnapshotStore } from '@turnkit/core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { HooksWorkerConfig } from '../fixtures/hooks-worker.js';
import type { InDoubtWorkerConfig } from '../fixtures/in-doubt-worker.js';
import { bundleProcesses } from './bundled-child.js';

/** The lease of the killed worker and of the sessions that take over. */
export const LEASE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let outdir: string;

/** Bundles the worker (or `entries`, e.g. the hooks worker) for the calling test file (its beforeAll), and removes it after. */
export function bundleInDoubtWorker(
  entries: Record<string, string> = { 'in-doubt-worker': 'fixtures/in-doubt-worker.ts' },
): void {
  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'turnkit-in-doubt-worker-'));
    await bundleProcesses({ entries, outdir });
  });
  afterAll(async () => {
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });
}

/**
 * Starts the worker (`worker`, one bundled by {@link bundleInDoubtWorker}) on `runId`, waits until
 * it is inside `execute`, kills it with SIGKILL; returns the key it ran with.
 */
export async function killedInsideExecute(
  config: InDoubtWorkerConfig | HooksWorkerConfig,
  worker = 'in-doubt-worker',
): Promise<string> {
  const child = spawn(process.execPath, [join(outdir, `${worker}.mjs`), JSON.stringify(config)], {
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
export async function leaseLapse(store: SnapshotStore, runId: string): Promise<void> {
  for (let polls = 0; (await store.get(runId))?.lease?.live; polls++) {
    expect(polls).toBeLessThan((4 * LEASE_MS) / 50);
    await sleep(50);
  }
}
