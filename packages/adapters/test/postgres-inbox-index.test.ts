/**
 * The Postgres inbox index (DESIGN §20): `listPending` filtered by `kind` reads an index in page
 * order — a page costs O(page), not a scan of every pending ask and a sort. Checked on the plan
 * PostgreSQL chooses for the store's own query over 10 000 pending asks.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../src/stores/postgres-store.js';
import { serverUrl } from './store-contract.js';

const url = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');

/** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
function nodesOf(plan: { Plans?: unknown[] }): Record<string, unknown>[] {
  return [plan, ...(plan.Plans ?? []).flatMap((child) => nodesOf(child as { Plans?: unknown[] }))];
}

describe.skipIf(!url)('postgresStore: the inbox kind filter', () => {
  let pool: pg.Pool;
  const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending`);
    await pool.end();
  });

  it('is served by an index in page order, without sorting the asks of that kind', async () => {
    const queries: { text: string; values: unknown[] }[] = [];
    const recording = {
      // The store sends named statements (prepared once per connection) unless told not to.
      query: (sent: string | { text: string; values: unknown[] }, values?: unknown[]) => {
        queries.push(typeof sent === 'string' ? { text: sent, values: values ?? [] } : sent);
        return typeof sent === 'string' ? pool.query(sent, values) : pool.query(sent);
      },
    };
    const store = postgresStore(recording as unknown as pg.Pool, { table });
    await store.migrate();
    const { rows: indexes } = await pool.query(
      'SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1',
      [`${table}_pending`],
    );
    expect(indexes).toContainEqual({
      indexname: `${table}_pending_kind_idx`,
      indexdef: expect.stringContaining('(kind, asked_ms, run_id, id)'),
    });

    // 10 000 pending asks, the newest 100 of them approvals (rows as the store writes them): read
    // in page order and filtered, their first page would cost a walk past 9 900 questions.
    await pool.query(
      `INSERT INTO ${table}_pending (run_id, id, asked_ms, kind, principal, entry)
       SELECT 'run-' || n, 'ask', 1893456000000 + n * 1000, CASE WHEN n <= 9900 THEN 'question' ELSE 'approval' END,
              'user-' || (n % 10), jsonb_build_object('id', 'ask', 'kind', 'approval')
       FROM generate_series(1, 10000) AS n`,
    );
    await pool.query(`ANALYZE ${table}_pending`);
    const page = await store.listPending!({ kind: 'approval' }, 50, null);
    expect(page.items).toHaveLength(50);
    expect(page.items[0]!.runId).toBe('run-9901');
    const listing = queries.at(-1)!;
    const {
      rows: [explained],
    } = await pool.query(`EXPLAIN (FORMAT JSON) ${listing.text}`, listing.values);
    const nodes = nodesOf(explained['QUERY PLAN'][0].Plan);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    expect(nodes.map((node) => node['Index Name'])).toContain(`${table}_pending_kind_idx`);
  });
});
