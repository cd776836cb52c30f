/**
 * The inbox's first page (DESIGN §20, issue 31): 10 000 paused runs stored in PostgreSQL and in
 * Redis, each with one pending ask, then `listPending`'s first page of 50 read again and again —
 * unfiltered, and by each filter `sessions.inbox` and `GET /interactions` pass. Prints the median
 * and p95 of the reads against the goal (≤ 5 ms: O(page), not O(runs)). A store whose server does
 * not answer is reported as skipped. Each store fills a table or key prefix of its own and drops it.
 */
import { randomUUID } from 'node:crypto';
import type { SnapshotStore } from '@turnkit/core';
import type { PendingFilter } from '@turnkit/core/store';
import { type Goal, goal, goalsTable, ms, summarize, table } from './report.js';

/** Paused runs stored before the reads. */
const RUNS = 10_000;
/** The first page's size. */
const PAGE = 50;
/** Timed reads per filter, after {@link WARMUP} untimed ones. */
const READS = 200;
const WARMUP = 20;
/** Writes in flight while filling. */
const FILL_CONCURRENCY = 32;
/** DESIGN §20: the first page in at most 5 ms. */
const GOAL_MS = 5;

/** The filters timed: the inbox unfiltered, and as each of its filters narrows it. */
const FILTERS: [label: string, filter: PendingFilter][] = [
  ['first page', {}],
  ['by principal', { principal: 'user-3' }],
  ['by assignee', { assignee: 'lead-2' }],
  ['visible to (HTTP)', { visibleTo: 'user-3' }],
  ['by kind', { kind: 'approval' }],
  ['by a rare kind', { kind: 'budget' }],
];

/** A store to measure and how to drop what the measurement wrote. */
interface InboxTarget {
  name: string;
  store: SnapshotStore;
  /** After the fill: brings the server to its steady state (Postgres: statistics, as autovacuum would). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** One row of the table: a store and filter's reads. */
interface InboxRow {
  store: string;
  filter: string;
  medianMs: number;
  p95Ms: number;
}

/**
 * Run n's one pending ask: questions and approvals alternate, every 100th is a `budget`; runs of
 * ten principals; approvals name one of five leads among their assignees.
 */
function pendingOf(n: number, started: number) {
  const kind = n % 100 === 0 ? 'budget' : n % 2 === 0 ? 'question' : 'approval';
  return {
    id: 'inventory:call_0_0',
    kind,
    agentPath: ['inventory'],
    summary: kind === 'question' ? 'Which K562 line do you mean?' : 'record_thaw approval',
    askedAt: new Date(started + n * 1000).toISOString(),
    principal: `user-${n % 10}`,
    ...(kind === 'approval' ? { assignees: [`lead-${n % 5}`] } : {}),
  };
}

/** Stores {@link RUNS} paused runs, {@link FILL_CONCURRENCY} writes at a time. */
async function fill(store: SnapshotStore): Promise<void> {
  const started = Date.UTC(2030, 0, 1);
  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const n = next++;
      await store.put(`run-${n}`, '{}', { expectedVersion: null, pending: [pendingOf(n, started)] });
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
}

/** The median and p95 of {@link READS} first-page reads with `filter`; each must be a full page. */
async function timeFirstPage(store: SnapshotStore, filter: PendingFilter): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + READS; i++) {
    const t0 = performance.now();
    const page = await store.listPending!(filter, PAGE, null);
    const elapsed = performance.now() - t0;
    if (page.items.length !== PAGE) {
      throw new Error(
        `inbox bench: expected a page of ${PAGE}, got ${page.items.length} (${JSON.stringify(filter)})`,
      );
    }
    if (i >= WARMUP) samples.push(elapsed);
  }
  return samples;
}

/** The 95th percentile of `samples`. */
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

async function openPostgres(url: string): Promise<InboxTarget> {
  const { postgresStore } = await import('@turnkit/adapters');
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: FILL_CONCURRENCY, connectionTimeoutMillis: 2000 });
  // Short enough that every index name the store derives from it stays within 63 characters.
  const tableName = `turnkit_bench_inbox_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  try {
    const store = postgresStore(pool, { table: tableName });
    await store.migrate();
    return {
      name: 'postgresStore',
      store,
      // A bulk fill leaves the planner's statistics empty until autovacuum's next pass; a table
      // serving an inbox has had that pass. Without it, a common kind is read by a bitmap scan and sorted.
      settle: async () => void (await pool.query(`ANALYZE ${tableName}_pending`)),
      close: async () => {
        await pool.query(`DROP TABLE IF EXISTS ${tableName}, ${tableName}_log, ${tableName}_pending`);
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

async function openRedis(url: string): Promise<InboxTarget> {
  const { redisStore } = await import('@turnkit/adapters');
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const prefix = `turnkit-bench-inbox:${randomUUID()}:`;
  return {
    name: 'redisStore',
    store: redisStore(client, { prefix }),
    settle: async () => undefined,
    close: async () => {
      let cursor = '0';
      do {
        const [nextCursor, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = nextCursor;
        if (keys.length > 0) await client.del(...keys);
      } while (cursor !== '0');
      await client.quit();
    },
  };
}

/**
 * The inbox rows of `npm run bench`: fills each reachable store, times the first page per filter,
 * prints the table and the goals (median ≤ 5 ms), and returns the goals.
 */
export async function benchInbox(): Promise<Goal[]> {
  const candidates: [name: string, open: () => Promise<InboxTarget>, where: string][] = [
    [
      'postgresStore',
      () => openPostgres(process.env.TURNKIT_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test'),
      process.env.TURNKIT_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    ],
    [
      'redisStore',
      () => openRedis(process.env.TURNKIT_REDIS_URL ?? 'redis://127.0.0.1:6379'),
      process.env.TURNKIT_REDIS_URL ?? 'redis://127.0.0.1:6379',
    ],
  ];
  const rows: InboxRow[] = [];
  const skipped: string[] = [];
  const fills: string[] = [];
  for (const [name, open, where] of candidates) {
    let target: InboxTarget;
    try {
      target = await open();
    } catch (error) {
      skipped.push(`${name}: skipped, ${where} unreachable (${(error as Error).message})`);
      continue;
    }
    try {
      const t0 = performance.now();
      await fill(target.store);
      await target.settle();
      fills.push(`${name}: ${RUNS} paused runs stored in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const [label, filter] of FILTERS) {
        const samples = await timeFirstPage(target.store, filter);
        rows.push({ store: name, filter: label, medianMs: summarize(samples).medianMs, p95Ms: p95(samples) });
      }
    } finally {
      await target.close();
    }
  }
  console.log(
    `\nInbox (DESIGN §20): listPending's first page of ${PAGE} with ${RUNS} paused runs stored, ${READS} reads per row; goal: median ≤ ${ms(GOAL_MS)}`,
  );
  for (const line of [...fills, ...skipped]) console.log(`  ${line}`);
  if (rows.length > 0) {
    console.log(
      table(
        ['store', 'filter', 'median', 'p95'],
        rows.map((row) => [row.store, row.filter, ms(row.medianMs), ms(row.p95Ms)]),
      ),
    );
  }
  const goals = rows.map((row) =>
    goal(`inbox first page, ${row.store}, ${row.filter}`, row.medianMs, GOAL_MS, ms),
  );
  if (goals.length > 0) console.log(goalsTable(goals));
  return goals;
}
