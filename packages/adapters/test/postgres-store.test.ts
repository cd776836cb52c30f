import { randomUUID } from 'node:crypto';
import { TurnkitError } from '@turnkit/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../src/postgres-store.js';
import { describeStoreContract, freshRunId, serverUrl } from './store-contract.js';

const url = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');

/** A pool and a table of its own, so parallel test runs never see each other's rows. */
function connect(): { pool: pg.Pool; table: string; teardown: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
  const teardown = async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  };
  return { pool, table, teardown };
}

describe.skipIf(!url)('postgresStore', () => {
  describeStoreContract('postgresStore', async () => {
    const { pool, table, teardown } = connect();
    const store = postgresStore(pool, { table });
    await store.migrate();
    return { store, teardown };
  });

  describe('migrate and options', () => {
    let connection: ReturnType<typeof connect>;
    beforeAll(() => {
      connection = connect();
    });
    afterAll(async () => {
      await connection.teardown();
    });

    it('creates the documented table and index, and can run again', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table });
      await store.migrate();
      await store.migrate();
      const { rows: columns } = await pool.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      expect(columns).toEqual([
        { column_name: 'run_id', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'version', data_type: 'integer', is_nullable: 'NO' },
        { column_name: 'snapshot', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'expires_at', data_type: 'timestamp with time zone', is_nullable: 'YES' },
        { column_name: 'updated_at', data_type: 'timestamp with time zone', is_nullable: 'NO' },
      ]);
      const { rows: indexes } = await pool.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [
        table,
      ]);
      expect(indexes.map((row) => row.indexname)).toContain(`${table}_expires_at_idx`);
      const { rows: lz4 } = await pool.query(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)",
      );
      if (lz4.length > 0) {
        const { rows: compression } = await pool.query(
          "SELECT attcompression FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'snapshot'",
          [table],
        );
        expect(compression).toEqual([{ attcompression: 'l' }]);
      }
    });

    it('stores expiresAt beside the snapshot', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table });
      await store.migrate();
      const runId = freshRunId('row');
      await store.put(runId, '{}', { expectedVersion: null, expiresAt: '2030-01-01T00:00:00.000Z' });
      const { rows } = await pool.query(`SELECT version, expires_at FROM ${table} WHERE run_id = $1`, [
        runId,
      ]);
      expect(rows).toEqual([{ version: 1, expires_at: new Date('2030-01-01T00:00:00.000Z') }]);
    });

    it('accepts a schema-qualified table', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table: `public.${table}` });
      await store.migrate();
      const runId = freshRunId('schema');
      await store.put(runId, 'x', { expectedVersion: null });
      expect(await postgresStore(pool, { table }).get(runId)).toEqual({ snapshot: 'x', version: 1 });
    });

    it.each(['runs; DROP TABLE users', 'my-table', '1runs', 'a.b.c', '"quoted"', '', 'x'.repeat(64)])(
      'refuses the table name %j with TurnkitError CONFIG_INVALID',
      (table) => {
        const error = (() => {
          try {
            postgresStore(connection.pool, { table });
          } catch (caught) {
            return caught as TurnkitError;
          }
          return expect.fail('expected a refusal');
        })();
        expect(error).toBeInstanceOf(TurnkitError);
        expect(error.code).toBe('CONFIG_INVALID');
      },
    );
  });
});
