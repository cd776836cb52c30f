/**
 * A hand-run measurement, not a test (timings belong to `npm run bench`): the first inbox page with
 * 10 000 paused runs stored, on PostgreSQL and Redis (DESIGN §20 asks for ≤ 5 ms). It fills a table
 * or key prefix of its own with 10 000 runs, each with one pending ask (runs of 10 principals), then
 * times `listPending` for the first page of 50: unfiltered, by principal, and by kind.
 *
 *   TURNKIT_PG_URL=… TURNKIT_REDIS_URL=… npx tsx test/scripts/inbox-first-page.ts [runs]
 */
import { randomUUID } from 'node:crypto';
import type { PendingFilter, SnapshotStore } from '@turnkit/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';

const RUNS = Number(process.argv[2] ?? 10_000);
const PAGE = 50;
const SAMPLES = 50;
const FILL_CONCURRENCY = 32;

async function fill(store: SnapshotStore): Promise<void> {
  const started = Date.UTC(2030, 0, 1);
  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const n = next++;
      await store.put(`run-${n}`, '{}', {
        expectedVersion: null,
        pending: [
          {
            id: 'inventory:call_0_0',
            kind: n % 2 === 0 ? 'question' : 'approval',
            agentPath: ['inventory'],
            summary: 'Which K562 line do you mean?',
            askedAt: new Date(started + n * 1000).toISOString(),
            principal: `user-${n % 10}`,
          },
        ],
      });
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
}

async function time(store: SnapshotStore, filter: PendingFilter): Promise<{ median: number; p95: number }> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES + 5; i++) {
    const start = performance.now();
    const page = await store.listPending!(filter, PAGE, null);
    const ms = performance.now() - start;
    if (page.items.length !== PAGE) throw new Error(`expected a page of ${PAGE}, got ${page.items.length}`);
    if (i >= 5) samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(SAMPLES / 2)]!, p95: samples[Math.floor(SAMPLES * 0.95)]! };
}

async function measure(name: string, store: SnapshotStore): Promise<void> {
  const filling = performance.now();
  await fill(store);
  console.log(
    `${name}: ${RUNS} paused runs stored in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
  );
  for (const [label, filter] of [
    ['first page', {}],
    ['by principal', { principal: 'user-3' }],
    ['by kind', { kind: 'approval' }],
  ] as const) {
    const { median, p95 } = await time(store, filter);
    console.log(`${name}: ${label}: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`);
  }
}

if (process.env.TURNKIT_PG_URL) {
  const pool = new pg.Pool({ connectionString: process.env.TURNKIT_PG_URL, max: FILL_CONCURRENCY });
  const table = `turnkit_inbox_${randomUUID().replaceAll('-', '')}`;
  const store = postgresStore(pool, { table });
  await store.migrate();
  try {
    await measure('postgres', store);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending`);
    await pool.end();
  }
}

if (process.env.TURNKIT_REDIS_URL) {
  const client = new Redis(process.env.TURNKIT_REDIS_URL);
  const prefix = `turnkit-inbox:${randomUUID()}:`;
  try {
    await measure('redis', redisStore(client, { prefix }));
  } finally {
    let cursor = '0';
    do {
      const [nextCursor, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
    await client.quit();
  }
}
