/**
 * Background turns across processes (DESIGN §17, issue 21), on loopback Redis: this process is the
 * HTTP handler (`createHandler({ queue: bullmqQueue(…) })`, a Redis store and event hub), and worker
 * processes (fixtures/turn-worker.ts) play the turns it enqueues. Tried as an unlucky production
 * would: 1 000 turns over two workers, a tool slower than every lease with double clicks, a worker
 * killed with SIGKILL mid-tool, SIGTERM or SIGINT that finishes, or hands back, the turn under way,
 * and a stop sent here that ends the turn a worker plays (DESIGN §20).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisEventHub } from '../src/events/hubs/redis.js';
import { createHandler } from '../src/http/public.js';
import { bullmqQueue } from '../src/queue/bullmq.js';
import type { TurnQueue } from '../src/queue/types.js';
import { redisStore } from '../src/stores/redis-store.js';
import type { TurnWorkerConfig, TurnWorkerMessage } from './fixtures/turn-worker.js';
import { bundleProcesses } from './helpers/bundled-child.js';
import { slowApprovalAgent, THAW_CALL_ID } from './helpers/lease-agent.js';
import { readSse, send } from './http-fixtures.js';
import { serverUrl } from './store-servers.js';

const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');
const ASYNC = { prefer: 'respond-async' };
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Bundles the worker with core's source. BullMQ and ioredis stay imports: the bundle is written
 * under the repository's node_modules so that Node finds them there.
 */
async function bundleTurnWorker(): Promise<{ file: string; remove(): Promise<void> }> {
  const cache = source('../../../node_modules/.cache');
  await mkdir(cache, { recursive: true });
  const outdir = await mkdtemp(join(cache, 'turnkit-turn-worker-'));
  await bundleProcesses({
    entries: { 'turn-worker': 'fixtures/turn-worker.ts' },
    outdir,
    external: ['bullmq', 'ioredis'],
  });
  return {
    file: join(outdir, 'turn-worker.mjs'),
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}

/** A worker process, and what it said. */
interface WorkerProcess {
  child: ChildProcess;
  /** Tool executions it started, by idempotency key. */
  executions: Map<string, number>;
  errors: string[];
  /** Resolves with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves at its next `executing` line. */
  nextExecution(): Promise<string>;
  /** Asks it to close and exit (if it still runs). */
  stop(): Promise<void>;
}

type Settings = Omit<TurnWorkerConfig, 'redisUrl' | 'storePrefix' | 'eventsPrefix' | 'queuePrefix'>;

let bundle: Awaited<ReturnType<typeof bundleTurnWorker>>;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  if (redisUrl) bundle = await bundleTurnWorker();
}, 60_000);
afterAll(async () => bundle?.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One test's world: prefixes of its own, the handler in this process, and worker processes. */
async function lab(settings: Settings) {
  const id = randomBytes(6).toString('hex');
  const prefixes = {
    storePrefix: `turnkit-bg-${id}:run:`,
    eventsPrefix: `turnkit-bg-${id}:events:`,
    queuePrefix: `turnkit-bg-${id}:bull`,
  };
  const client = new Redis(redisUrl!);
  const { hostname, port } = new URL(redisUrl!);
  const queue: TurnQueue = bullmqQueue({
    connection: { host: hostname, port: Number(port || 6379) },
    prefix: prefixes.queuePrefix,
    lockMs: settings.lockMs,
  });
  const handler = createHandler({
    agent: slowApprovalAgent({ toolMs: settings.toolMs }),
    store: redisStore(client, { prefix: prefixes.storePrefix }),
    eventHub: redisEventHub(client, { prefix: prefixes.eventsPrefix }),
    queue,
    leaseMs: settings.leaseMs,
  });
  const workers: WorkerProcess[] = [];
  cleanups.push(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await queue.close();
    const keys = await client.keys(`turnkit-bg-${id}:*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });

  async function startWorker(overrides: Partial<Settings> = {}): Promise<WorkerProcess> {
    const config: TurnWorkerConfig = { redisUrl: redisUrl!, ...prefixes, ...settings, ...overrides };
    const child = spawn(process.execPath, [bundle.file, JSON.stringify(config)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const executions = new Map<string, number>();
    const errors: string[] = [];
    const waiting: Array<(key: string) => void> = [];
    let ready: () => void = () => {};
    const isReady = new Promise<void>((resolve) => {
      ready = resolve;
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as TurnWorkerMessage;
      if (message.type === 'ready') ready();
      if (message.type === 'error') errors.push(message.message);
      if (message.type === 'executing') {
        executions.set(message.key, (executions.get(message.key) ?? 0) + 1);
        for (const resolve of waiting.splice(0)) resolve(message.key);
      }
    });
    await Promise.race([
      isReady,
      exited.then(({ code }) => Promise.reject(new Error(`turn worker exited early (code ${code})`))),
    ]);
    const worker: WorkerProcess = {
      child,
      executions,
      errors,
      exited,
      nextExecution: () => new Promise((resolve) => waiting.push(resolve)),
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.stdin!.write('{"op":"exit"}\n');
        await exited;
      },
    };
    workers.push(worker);
    return worker;
  }

  /** Starts a run and plays its first turn here, to its approval. */
  async function pausedRun(): Promise<string> {
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
    expect(started.body.status).toBe('needs_input');
    return started.body.runId as string;
  }

  /** Approves `runId` in the background: 202 as soon as the turn is claimed and enqueued. */
  async function approveAsync(runId: string) {
    return send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC);
  }

  /** Resolves once every run has left `running` (read as a client would, over the handler). */
  async function settled(runIds: string[], timeout: number) {
    const remaining = new Set(runIds);
    // biome-ignore lint/suspicious/noExplicitAny: run views as read over HTTP.
    const views = new Map<string, any>();
    await vi.waitFor(
      async () => {
        for (const runId of [...remaining]) {
          const read = await send(handler, 'GET', `/runs/${runId}`);
          if (read.body.status === 'running') continue;
          views.set(runId, read.body);
          remaining.delete(runId);
        }
        if (remaining.size > 0) throw new Error(`${remaining.size} run(s) still running`);
      },
      { timeout, interval: 200 },
    );
    return views;
  }

  return { handler, startWorker, pausedRun, approveAsync, settled };
}

/** Sums the executions of every worker by key. */
function allExecutions(workers: WorkerProcess[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const worker of workers) {
    for (const [key, count] of worker.executions) total.set(key, (total.get(key) ?? 0) + count);
  }
  return total;
}

/** Runs `task` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += width) {
    results.push(...(await Promise.all(items.slice(index, index + width).map(task))));
  }
  return results;
}

const keyOf = (runId: string) => `${runId}:${THAW_CALL_ID}`;

describe.skipIf(!redisUrl)('background turns across processes (BullMQ, Redis store and event hub)', () => {
  it('plays 1 000 background turns over two workers: none lost, each tool once', async () => {
    const { handler, startWorker, settled } = await lab({
      leaseMs: 60_000,
      lockMs: 10_000,
      toolMs: 0,
      abortable: false,
      concurrency: 8,
      graceMs: 30_000,
    });
    const workers = await Promise.all([startWorker(), startWorker()]);
    const RUNS = 1_000;
    const started = await inBatches(Array.from({ length: RUNS }), 50, () =>
      send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' }, ASYNC),
    );
    expect(started.every((response) => response.status === 202)).toBe(true);
    const runIds = started.map((response) => response.body.runId as string);
    expect(new Set(runIds).size).toBe(RUNS);

    const paused = await settled(runIds, 120_000);
    expect([...paused.values()].every((view) => view.status === 'needs_input')).toBe(true);

    const approved = await inBatches(runIds, 50, (runId) =>
      send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC),
    );
    expect(approved.every((response) => response.status === 202)).toBe(true);
    const done = await settled(runIds, 120_000);
    for (const runId of runIds) {
      expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
    }
    const executions = allExecutions(workers);
    expect(executions.size).toBe(RUNS);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    // Both workers took their share.
    expect(workers.every((worker) => worker.executions.size > 0)).toBe(true);
    expect(workers.flatMap((worker) => worker.errors)).toEqual([]);
  }, 300_000);

  it('runs a tool slower than the lease and the queue lock once, however often the approval is sent', async () => {
    const { startWorker, pausedRun, approveAsync, settled } = await lab({
      leaseMs: 1_000,
      lockMs: 1_000,
      toolMs: 1_500,
      abortable: false,
      concurrency: 4,
      graceMs: 30_000,
    });
    const workers = await Promise.all([startWorker(), startWorker()]);
    const runIds = await Promise.all(Array.from({ length: 6 }, () => pausedRun()));
    const first = await Promise.all(runIds.map(approveAsync));
    expect(first.map((response) => response.status)).toEqual(runIds.map(() => 202));
    // Double clicks, while the turns play: each reads the claimed run; nothing is enqueued twice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await Promise.all(runIds.map(approveAsync));
    expect(again.map((response) => response.status)).toEqual(runIds.map(() => 200));

    const done = await settled(runIds, 30_000);
    const executions = allExecutions(workers);
    for (const runId of runIds) {
      expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
      expect(executions.get(keyOf(runId))).toBe(1);
    }
  }, 60_000);

  it('recovers the turns of a worker killed with SIGKILL mid-tool: each tool at most twice, with one key', async () => {
    const { startWorker, pausedRun, approveAsync, settled } = await lab({
      leaseMs: 1_000,
      lockMs: 1_000,
      toolMs: 1_500,
      abortable: false,
      concurrency: 2,
      graceMs: 30_000,
    });
    const workers = await Promise.all([startWorker(), startWorker()]);
    const runIds = await Promise.all(Array.from({ length: 4 }, () => pausedRun()));
    const firstExecution = Promise.race(
      workers.map((worker, index) => worker.nextExecution().then(() => index)),
    );
    await Promise.all(runIds.map(approveAsync));
    const victim = workers[await firstExecution]!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    victim.child.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    const killedMidTool = new Set(victim.executions.keys());
    expect(killedMidTool.size).toBeGreaterThan(0);

    const done = await settled(runIds, 60_000);
    const survivor = workers.find((worker) => worker !== victim)!;
    for (const runId of runIds) {
      const view = done.get(runId);
      expect(view).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
      // The survivor ran every tool once; a tool the victim had started ran twice, with one key.
      expect(survivor.executions.get(keyOf(runId))).toBe(1);
      expect(allExecutions(workers).get(keyOf(runId))).toBe(killedMidTool.has(keyOf(runId)) ? 2 : 1);
      // One tool result for the one tool call, whatever happened.
      const results = view.messages.filter(
        (message: { role: string; tool_call_id?: string }) =>
          message.role === 'tool' && message.tool_call_id === THAW_CALL_ID,
      );
      expect(results).toHaveLength(1);
    }
  }, 90_000);

  it('finishes the turn under way on SIGTERM, while an SSE client follows it', async () => {
    const { handler, startWorker, pausedRun, approveAsync } = await lab({
      leaseMs: 1_000,
      lockMs: 2_000,
      toolMs: 1_000,
      abortable: true,
      concurrency: 1,
      graceMs: 20_000,
    });
    const worker = await startWorker();
    const runId = await pausedRun();
    const events = await handler(new Request(`http://test.local/runs/${runId}/events`));
    expect(events.status).toBe(200);
    const executing = worker.nextExecution();
    expect((await approveAsync(runId)).status).toBe(202);
    await executing;
    worker.child.kill('SIGTERM');
    // The worker closed after the turn was written, then ended by the signal.
    expect((await worker.exited).signal).toBe('SIGTERM');
    const read = await send(handler, 'GET', `/runs/${runId}`);
    expect(read.body).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
    expect(worker.executions.get(keyOf(runId))).toBe(1);

    // The stream, served here, heard the turn the worker played in its process.
    const heard: string[] = [];
    for await (const event of readSse(events.body!)) {
      if (event.event === 'comment') continue;
      heard.push(event.event === 'state' ? `state:${event.data.status}` : event.data.type);
      if (event.event === 'state' && event.data.status === 'completed') break;
    }
    expect(heard[0]).toBe('state:needs_input');
    expect(heard).toContain('tool_started');
    expect(heard.at(-1)).toBe('state:completed');
  }, 60_000);

  it('stops a turn a worker process plays (POST /runs/:id/stop here): aborted before its next model call, the running tool finished and kept', async () => {
    const { handler, startWorker, pausedRun, approveAsync, settled } = await lab({
      leaseMs: 60_000,
      lockMs: 10_000,
      toolMs: 1_000,
      // The tool would stop if its signal aborted: a stop must let it finish.
      abortable: true,
      concurrency: 1,
      graceMs: 20_000,
    });
    const worker = await startWorker();
    const runId = await pausedRun();
    const events = await handler(new Request(`http://test.local/runs/${runId}/events`));
    const executing = worker.nextExecution();
    expect((await approveAsync(runId)).status).toBe(202);
    await executing;
    const stopped = await send(handler, 'POST', `/runs/${runId}/stop`, { reason: 'wrong vial' });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ stop: 'requested', status: 'running' });

    const view = (await settled([runId], 30_000)).get(runId);
    expect(view.status).toBe('aborted');
    expect(view.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: THAW_CALL_ID });
    expect(JSON.parse(view.messages.at(-1).content)).toEqual({ recorded: keyOf(runId) });
    expect(worker.executions.get(keyOf(runId))).toBe(1);
    expect(worker.errors).toEqual([]);
    // The stream, served here, heard the worker's turn end aborted, with no model call after the tool.
    const heard: string[] = [];
    for await (const event of readSse(events.body!)) {
      if (event.event === 'comment') continue;
      heard.push(event.event === 'state' ? `state:${event.data.status}` : event.data.type);
      if (event.event === 'state' && event.data.status === 'aborted') break;
    }
    expect(heard).toContain('tool_finished');
    expect(heard).toContain('turn_aborted');
    expect(heard).not.toContain('model_started');
  }, 60_000);

  it('hands the turn under way back on SIGINT (Ctrl-C) after graceMs; the next worker finishes it', async () => {
    const { startWorker, pausedRun, approveAsync, settled, handler } = await lab({
      leaseMs: 1_000,
      lockMs: 2_000,
      toolMs: 5_000,
      abortable: true,
      concurrency: 1,
      graceMs: 100,
    });
    const first = await startWorker();
    const runId = await pausedRun();
    const executing = first.nextExecution();
    const approved = await approveAsync(runId);
    expect(approved.status).toBe(202);
    await executing;
    first.child.kill('SIGINT');
    expect((await first.exited).signal).toBe('SIGINT');
    // It did not wait for the 5 s tool: the run is still running, with nothing of the turn written.
    const handedBack = await send(handler, 'GET', `/runs/${runId}`);
    expect(handedBack.body.status).toBe('running');
    expect(handedBack.body.messages.some((message: { role: string }) => message.role === 'tool')).toBe(false);

    const second = await startWorker({ toolMs: 100 });
    const done = await settled([runId], 30_000);
    expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
    expect(first.executions.get(keyOf(runId))).toBe(1);
    expect(second.executions.get(keyOf(runId))).toBe(1);
  }, 60_000);
});
