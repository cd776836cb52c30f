/**
 * Store rows: a resume (`sessions.answer`) through `createSessions` over memoryStore (the
 * baseline), fileStore, Redis and Postgres. Each store is wrapped to count its calls, so the row
 * also shows the round trips per resume (target: one read, two compare-and-set writes). Every
 * store keeps runs in row layout 2 (DESIGN §17); store-writes.ts measures what that writes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatMessage, createSessions, memoryStore, type SnapshotStore } from '@turnkit/core';
import type { Bench } from 'tinybench';
import { ANSWER, BrokenRunError, cycleAgent, expectCompleted, expectPaused } from './cycle.js';
import { newBench, runRounds, summarize, type Timing } from './report.js';

/** History lengths of the store rows. */
export const STORE_LENGTHS = [100, 1000] as const;
/** Stores are I/O-bound and slow per iteration: fewer rounds than the cycle rows. */
const STORE_ROUNDS = 3;

/** Calls made on a store, with what they wrote and how long each get and put took (ms). */
export interface StoreCalls {
  /** Reads: `get`, or `getParts` (row layout 2). */
  get: number;
  /** Writes: `put`, or `putParts` (row layout 2). */
  put: number;
  renew: number;
  delete: number;
  bytesWritten: number;
  getMs: number[];
  putMs: number[];
}

function noCalls(): StoreCalls {
  return { get: 0, put: 0, renew: 0, delete: 0, bytesWritten: 0, getMs: [], putMs: [] };
}

/** The text a read returned: a whole snapshot, or a layout-2 row's head and logs. */
type ReadRow = { snapshot: string } | { head: string; messages: string; resolved: string } | null;

/**
 * A store whose calls are counted and timed; `reset()` starts a new count. It keeps the store's row
 * layout: `getParts` and `putParts` are passed through when the store has them (then counted as a
 * get and a put). The rows read are kept so `bytesRead()` can size them after the timed part.
 */
export function countingStore(inner: SnapshotStore): {
  store: SnapshotStore;
  calls: () => StoreCalls;
  bytesRead(): number;
  reset(): void;
} {
  let calls = noCalls();
  let reads: ReadRow[] = [];
  const timed = async <T>(durations: number[], work: Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const value = await work;
    durations.push(performance.now() - t0);
    return value;
  };
  const read = async <T extends ReadRow>(work: Promise<T>): Promise<T> => {
    calls.get++;
    const row = await timed(calls.getMs, work);
    reads.push(row);
    return row;
  };
  const store: SnapshotStore = {
    get: (runId) => read(inner.get(runId)),
    put(runId, snapshot, opts) {
      calls.put++;
      calls.bytesWritten += Buffer.byteLength(snapshot);
      return timed(calls.putMs, inner.put(runId, snapshot, opts));
    },
    renew(runId, opts) {
      calls.renew++;
      return inner.renew(runId, opts);
    },
    listExpired: (before, limit) => inner.listExpired(before, limit),
    delete(runId) {
      calls.delete++;
      return inner.delete(runId);
    },
  };
  if (inner.getParts && inner.putParts) {
    store.getParts = (runId) => read(inner.getParts!(runId));
    store.putParts = (runId, write, opts) => {
      calls.put++;
      calls.bytesWritten += Buffer.byteLength(write.head);
      calls.bytesWritten += Buffer.byteLength(write.messages) + Buffer.byteLength(write.resolved);
      return timed(calls.putMs, inner.putParts!(runId, write, opts));
    };
  }
  const sizeOf = (row: ReadRow) =>
    row === null
      ? 0
      : 'snapshot' in row
        ? Buffer.byteLength(row.snapshot)
        : Buffer.byteLength(row.head) + Buffer.byteLength(row.messages) + Buffer.byteLength(row.resolved);
  return {
    store,
    calls: () => calls,
    bytesRead: () => reads.reduce((sum, row) => sum + sizeOf(row), 0),
    reset() {
      calls = noCalls();
      reads = [];
    },
  };
}

/** A store to measure, or the reason it is skipped. */
export type StoreTarget =
  | { name: string; store: SnapshotStore; close(): Promise<void> }
  | { name: string; skipped: string };

function message(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

type Adapters = Partial<typeof import('@turnkit/adapters')>;
type Opened = Extract<StoreTarget, { store: SnapshotStore }>;

async function openFile(adapters: Adapters): Promise<Opened> {
  const dir = await mkdtemp(join(tmpdir(), 'turnkit-bench-'));
  return {
    name: 'fileStore',
    store: adapters.fileStore!(dir),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function openRedis(adapters: Adapters, url: string): Promise<Opened> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const store = adapters.redisStore!(client, { prefix: 'turnkit:bench:' });
  return { name: 'redisStore', store, close: async () => void (await client.quit()) };
}

async function openPostgres(adapters: Adapters, url: string): Promise<Opened> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 1500, max: 2 });
  pool.on('error', () => undefined);
  try {
    const store = adapters.postgresStore!(pool, { table: 'turnkit_bench_runs' });
    await store.migrate();
    return { name: 'postgresStore', store, close: () => pool.end() };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** Opens every store; unreachable ones (or adapters not built yet) come back skipped, with the reason. */
export async function openStores(): Promise<StoreTarget[]> {
  const targets: StoreTarget[] = [
    { name: 'memoryStore', store: memoryStore(), close: async () => undefined },
  ];
  let adapters: Adapters | string;
  try {
    adapters = await import('@turnkit/adapters');
  } catch (error) {
    adapters = `@turnkit/adapters is not built yet (${message(error)})`;
  }
  const redisUrl = process.env.TURNKIT_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const pgUrl = process.env.TURNKIT_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const candidates: Array<
    [name: keyof Adapters, open: (adapters: Adapters) => Promise<Opened>, where: string]
  > = [
    ['fileStore', openFile, 'a temp dir'],
    ['redisStore', (found) => openRedis(found, redisUrl), redisUrl],
    ['postgresStore', (found) => openPostgres(found, pgUrl), pgUrl],
  ];
  for (const [name, open, where] of candidates) {
    if (typeof adapters === 'string') targets.push({ name, skipped: adapters });
    else if (typeof adapters[name] !== 'function')
      targets.push({ name, skipped: `@turnkit/adapters has no ${name} yet` });
    else {
      try {
        targets.push(await open(adapters));
      } catch (error) {
        targets.push({ name, skipped: `${where} unreachable (${message(error)})` });
      }
    }
  }
  return targets;
}

/**
 * Adds a task timing one resume through sessions over `target`. Each iteration starts a fresh run
 * (not timed), then times `sessions.answer` and checks the round trips it made.
 */
export function addResumeTask(
  bench: Bench,
  taskName: string,
  target: Extract<StoreTarget, { store: SnapshotStore }>,
  history: ChatMessage[],
  trips: Map<string, StoreCalls>,
): void {
  const counted = countingStore(target.store);
  const sessions = createSessions({ agent: cycleAgent(history), store: counted.store });
  bench.add(taskName, async () => {
    const started = await sessions.start(history);
    expectPaused(started, `${target.name} sessions.start`);
    counted.reset();
    const t0 = performance.now();
    const done = await sessions.answer(started.runId, ANSWER);
    const duration = performance.now() - t0;
    expectCompleted(done, `${target.name} sessions.answer`);
    const seen = counted.calls();
    const before = trips.get(taskName);
    if (before && (before.get !== seen.get || before.put !== seen.put || before.delete !== seen.delete)) {
      throw new BrokenRunError(
        `${taskName}: round trips changed between iterations (${before.get}/${before.put} → ${seen.get}/${seen.put})`,
      );
    }
    trips.set(taskName, {
      ...seen,
      getMs: [...(before?.getMs ?? []), ...seen.getMs],
      putMs: [...(before?.putMs ?? []), ...seen.putMs],
    });
    await target.store.delete(started.runId);
    return { overriddenDuration: duration };
  });
}

/** One row of the stores table: a store at one history length, or why it was skipped. */
export interface StoreRow {
  store: string;
  history?: number;
  resume?: Timing;
  addedMs?: number;
  calls?: Omit<StoreCalls, 'getMs' | 'putMs'> & { getMedianMs: number; putMedianMs: number };
  skipped?: string;
}

/** Times a resume through every reachable store (opened by {@link openStores}), at each of {@link STORE_LENGTHS}. */
export async function benchStores(
  histories: Map<number, ChatMessage[]>,
  targets: StoreTarget[],
): Promise<StoreRow[]> {
  const bench = newBench({ time: 200, warmupTime: 50, iterations: 8 });
  const trips = new Map<string, StoreCalls>();
  for (const target of targets) {
    if (!('store' in target)) continue;
    for (const length of STORE_LENGTHS)
      addResumeTask(bench, `${target.name} ${length}`, target, histories.get(length)!, trips);
  }
  const timings = await runRounds(bench, STORE_ROUNDS);
  return targets.flatMap((target): StoreRow[] => {
    if (!('store' in target)) return [{ store: target.name, skipped: target.skipped }];
    return STORE_LENGTHS.map((length) => {
      const resume = timings.get(`${target.name} ${length}`)!;
      const { getMs, putMs, ...counts } = trips.get(`${target.name} ${length}`)!;
      const calls = {
        ...counts,
        getMedianMs: summarize(getMs).medianMs,
        putMedianMs: summarize(putMs).medianMs,
      };
      const addedMs = resume.medianMs - timings.get(`memoryStore ${length}`)!.medianMs;
      return { store: target.name, history: length, resume, addedMs, calls };
    });
  });
}
