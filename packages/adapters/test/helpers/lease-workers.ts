/**
 * Worker processes for the cross-process lease tests: bundles fixtures/lease-worker.ts (with core's
 * source, the agent and the store clients) and the clock-skew preload once, starts workers with a
 * clock off by a given amount, and exchanges their JSON lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { WorkerCommand, WorkerConfig, WorkerMessage } from '../fixtures/lease-worker.js';
import { bundleProcesses } from './bundled-child.js';

/** The bundled worker and preload, and how to remove them. */
export interface WorkerBundle {
  worker: string;
  preload: string;
  remove(): Promise<void>;
}

/** Bundles the worker and the preload into a temporary folder (pg's optional native binding left out). */
export async function bundleWorker(): Promise<WorkerBundle> {
  const outdir = await mkdtemp(join(tmpdir(), 'turnkit-lease-worker-'));
  await bundleProcesses({
    entries: { 'lease-worker': 'fixtures/lease-worker.ts', 'skewed-clock': 'fixtures/skewed-clock.ts' },
    outdir,
  });
  return {
    worker: join(outdir, 'lease-worker.mjs'),
    preload: join(outdir, 'skewed-clock.mjs'),
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}

/** A running worker process. */
export interface Worker {
  child: ChildProcess;
  /** Its `Date.now()` when it started (skew included). */
  startedAt: number;
  send(command: WorkerCommand): void;
  /** The next line it writes; rejects if it exits first. */
  next(): Promise<WorkerMessage>;
  /** Asks it to exit and waits for it. */
  stop(): Promise<void>;
  /** Kills it with SIGKILL (no cleanup, no last write) and waits for it to be gone. */
  kill(): Promise<void>;
}

/** Starts a worker whose wall clock is off by `skewMs`, and waits until it is ready. */
export async function startWorker(
  bundle: WorkerBundle,
  config: WorkerConfig,
  skewMs: number,
): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', bundle.preload, bundle.worker, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, TURNKIT_CLOCK_SKEW_MS: String(skewMs) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`lease worker ${child.pid} exited early (code ${child.exitCode})`);
    return JSON.parse(value as string) as WorkerMessage;
  };
  const ready = await next();
  if (ready.type !== 'ready') throw new Error(`lease worker said ${JSON.stringify(ready)} first`);
  return {
    child,
    startedAt: ready.now,
    send: (command) => child.stdin!.write(`${JSON.stringify(command)}\n`),
    next,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.stdin!.write('{"op":"exit"}\n');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Reads a worker's lines until one of `type`, and returns it. A `done` while waiting for something
 * else throws (with what the worker's requests got), rather than waiting for a line that will not come.
 */
export async function nextOfType<Type extends WorkerMessage['type']>(
  worker: Worker,
  type: Type,
): Promise<Extract<WorkerMessage, { type: Type }>> {
  for (;;) {
    const message = await worker.next();
    if (message.type === type) return message as Extract<WorkerMessage, { type: Type }>;
    if (message.type === 'done') {
      throw new Error(
        `lease worker finished its command without a "${type}" line: ${JSON.stringify(message)}`,
      );
    }
  }
}
