/**
 * The world of the cross-process background-turn tests (DESIGN §17): this process is the HTTP
 * handler (`createHandler({ queue: bullmqQueue(…) })`, a Redis store and event hub), and worker
 * processes (fixtures/turn-worker.ts, bundled with esbuild) play the turns it enqueues. The worker
 * is bundled against the BullMQ major under test: `bullmq` stays an import, of `bullmq` itself or of
 * the alias `bullmq-6`, resolved by Node under the repository's node_modules; the handler's side
 * gets the same major from the test file (which mocks `bullmq` for 6).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { redisEventHub } from '../src/events/hubs/redis.js';
import { createHandler } from '../src/http/public.js';
import { bullmqQueue } from '../src/queue/bullmq.js';
import type { TurnQueue } from '../src/queue/types.js';
import { redisStore } from '../src/stores/redis-store.js';
import type { TurnWorkerConfig, TurnWorkerMessage } from './fixtures/turn-worker.js';
import { slowApprovalAgent, THAW_CALL_ID } from './helpers/lease-agent.js';
import { send } from './http-fixtures.js';
import { serverUrl } from './store-servers.js';

export const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');
export const ASYNC = { prefer: 'respond-async' };
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Which BullMQ the worker processes load: the lock's `bullmq` (5) or the alias `bullmq-6`. */
export type BullmqInstall = 'bullmq' | 'bullmq-6';

/** A bundled turn worker. */
export interface TurnWorkerBundle {
  file: string;
  /** What the bundle imports at run time, statically or not (what Node will load beside it). */
  imports(): Promise<string[]>;
  remove(): Promise<void>;
}

/**
 * Bundles the worker with core's source. BullMQ and ioredis stay imports — `bullmq` rewritten to
 * `install` — and the bundle is written under the repository's node_modules so Node finds them.
 */
export async function bundleTurnWorker(install: BullmqInstall): Promise<TurnWorkerBundle> {
  const cache = source('../../../node_modules/.cache');
  await mkdir(cache, { recursive: true });
  const outdir = await mkdtemp(join(cache, 'turnkit-turn-worker-'));
  await build({
    entryPoints: { 'turn-worker': source('./fixtures/turn-worker.ts') },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outdir,
    outExtension: { '.js': '.mjs' },
    alias: {
      '@turnkit/core/testing': source('../../core/src/testing/index.ts'),
      '@turnkit/core/store': source('../../core/src/store.ts'),
      '@turnkit/core': source('../../core/src/index.ts'),
    },
    external: ['ioredis', 'pg-native'],
    plugins: [
      {
        name: 'bullmq-install',
        setup(bundler) {
          bundler.onResolve({ filter: /^bullmq$/ }, () => ({ path: install, external: true }));
        },
      },
    ],
    // ioredis is CommonJS and requires Node's built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  const file = join(outdir, 'turn-worker.mjs');
  return {
    file,
    async imports() {
      const text = await readFile(file, 'utf8');
      const specifiers = text.matchAll(/(?:\bfrom |\bimport\()\s*"([^"]+)"/g);
      return [...new Set([...specifiers].map((match) => match[1]!))];
    },
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}

/** A worker process, and what it said. */
export interface WorkerProcess {
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

export type Settings = Omit<TurnWorkerConfig, 'redisUrl' | 'storePrefix' | 'eventsPrefix' | 'queuePrefix'>;

/**
 * Sets up the labs of one describe block on the BullMQ `install`: bundles the worker before its
 * tests and removes it after; `lab(settings)` makes one test's world, taken down after that test.
 * Call it inside a `describe`.
 */
export function labsOn(install: BullmqInstall) {
  let bundle: TurnWorkerBundle | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    if (redisUrl) bundle = await bundleTurnWorker(install);
  }, 60_000);
  afterAll(async () => bundle?.remove());
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    bundle: () => bundle!,
    lab: (settings: Settings) => lab(bundle!, settings, cleanups),
  };
}

/** One test's world: prefixes of its own, the handler in this process, and worker processes. */
async function lab(bundle: TurnWorkerBundle, settings: Settings, cleanups: Array<() => Promise<unknown>>) {
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

  /** The library BullMQ recorded in Redis for this lab's queue (`bullmq:<version>`). */
  const bullmqRecorded = () => client.hget(`${prefixes.queuePrefix}:turnkit-turns:meta`, 'version');

  return { handler, startWorker, pausedRun, approveAsync, settled, bullmqRecorded };
}

/** Sums the executions of every worker by key. */
export function allExecutions(workers: WorkerProcess[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const worker of workers) {
    for (const [key, count] of worker.executions) total.set(key, (total.get(key) ?? 0) + count);
  }
  return total;
}

/** Runs `task` over `items`, `width` at a time. */
export async function inBatches<T, R>(
  items: T[],
  width: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += width) {
    results.push(...(await Promise.all(items.slice(index, index + width).map(task))));
  }
  return results;
}

export const keyOf = (runId: string) => `${runId}:${THAW_CALL_ID}`;
