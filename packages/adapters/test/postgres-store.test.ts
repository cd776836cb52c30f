import { randomUUID } from 'node:crypto';
import { ConflictError, runTurn, TurnkitError } from '@turnkit/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../src/stores/postgres-store.js';
import { approvalAgent, expectResumedAsLayout2, priorMessages } from './helpers/store-resume.js';
import { describeStoreContract, freshRunId, serverClock, serverUrl } from './store-contract.js';
import { expectKeepsLatestTwo } from './store-contract-forks.js';

const url = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');

/** A pool and a table of its own, so parallel test runs never see each other's rows. */
function connect(): { pool: pg.Pool; table: string; teardown: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
  const teardown = async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending, ${table}_pts`);
    await pool.end();
  };
  return { pool, table, teardown };
}

describe.skipIf(!url)('postgresStore', () => {
  describeStoreContract('postgresStore', async () => {
    const { pool, table, teardown } = connect();
    const store = postgresStore(pool, { table });
    await store.migrate();
    // A pool of its own: the client whose host clock differs in the skew test.
    const peerPool = new pg.Pool({ connectionString: url, max: 2 });
    return {
      store,
      peer: postgresStore(peerPool, { table }),
      clock: serverClock(),
      teardown: async () => {
        await peerPool.end();
        await teardown();
      },
    };
  });

  describe('migrate and options', () => {
    let connection: ReturnType<typeof connect>;
    beforeAll(() => {
      connection = connect();
    });
    afterAll(async () => {
      await connection.teardown();
    });

    it('sends its statements prepared (named) by default, as plain text with prepare: false, and both work', async () => {
      const { pool, table } = connection;
      for (const prepare of [undefined, false] as const) {
        const sent: (string | { name: string; text: string })[] = [];
        const recording = {
          query: (given: string | { name: string; text: string; values: unknown[] }, values?: unknown[]) => {
            sent.push(given);
            return typeof given === 'string' ? pool.query(given, values) : pool.query(given);
          },
        };
        const store = postgresStore(recording as unknown as pg.Pool, { table, prepare });
        await store.migrate();
        sent.length = 0;
        const agent = approvalAgent(2);
        const paused = await runTurn(agent, { input: 'thaw', runId: freshRunId('prepared') });
        await store.put(paused.runId, paused.snapshot, { expectedVersion: null });
        await store.get(paused.runId);
        const named = sent.filter((item) => typeof item !== 'string');
        if (prepare === false) expect(named).toEqual([]);
        else {
          expect(sent.length).toBeGreaterThan(0);
          expect(named).toHaveLength(sent.length);
          // One name per text, the same every time it is sent.
          const byName = new Map(named.map((item) => [item.name, item.text]));
          expect(new Set(named.map((item) => item.text)).size).toBe(byName.size);
        }
      }
    });

    it('keeps the latest points only, with keepHistory (issue 32)', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table, keepHistory: 2 });
      await store.migrate();
      await expectKeepsLatestTwo(store);
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
        { column_name: 'snapshot', data_type: 'text', is_nullable: 'YES' },
        { column_name: 'expires_at', data_type: 'timestamp with time zone', is_nullable: 'YES' },
        { column_name: 'updated_at', data_type: 'timestamp with time zone', is_nullable: 'NO' },
        { column_name: 'lease_owner', data_type: 'text', is_nullable: 'YES' },
        { column_name: 'lease_until', data_type: 'timestamp with time zone', is_nullable: 'YES' },
        { column_name: 'head', data_type: 'text', is_nullable: 'YES' },
        { column_name: 'log_from', data_type: 'integer', is_nullable: 'YES' },
        { column_name: 'lease_stop', data_type: 'text', is_nullable: 'YES' },
        // Partial reads (DESIGN §22): the transcript log's length and where its window starts.
        { column_name: 'log_length', data_type: 'bigint', is_nullable: 'YES' },
        { column_name: 'log_window', data_type: 'bigint', is_nullable: 'YES' },
        // Late input (DESIGN §30): messages queued on the run.
        { column_name: 'queued', data_type: 'jsonb', is_nullable: 'YES' },
      ]);
      const { rows: logColumns } = await pool.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_name = $1 ORDER BY ordinal_position`,
        [`${table}_log`],
      );
      expect(logColumns).toEqual([
        { column_name: 'run_id', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'version', data_type: 'integer', is_nullable: 'NO' },
        { column_name: 'messages', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'resolved', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'log_at', data_type: 'bigint', is_nullable: 'YES' },
        // A long text is kept as several rows of one write (DESIGN §22, issue 43).
        { column_name: 'part', data_type: 'integer', is_nullable: 'NO' },
      ]);
      const { rows: key } = await pool.query(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
        [`${table}_log`],
      );
      expect(key.map((row) => row.attname)).toEqual(['run_id', 'version', 'part']);
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

    it('stores the lease on the database clock, and clears it on release', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table });
      await store.migrate();
      const runId = freshRunId('lease-row');
      await store.put(runId, '{}', { expectedVersion: null, lease: { owner: 'worker-a', ms: 60_000 } });
      const { rows } = await pool.query(
        `SELECT lease_owner, extract(epoch FROM lease_until - clock_timestamp()) * 1000 AS left_ms
         FROM ${table} WHERE run_id = $1`,
        [runId],
      );
      expect(rows[0].lease_owner).toBe('worker-a');
      expect(Number(rows[0].left_ms)).toBeGreaterThan(59_000);
      expect(Number(rows[0].left_ms)).toBeLessThanOrEqual(60_000);
      await store.put(runId, '{}', { expectedVersion: 1, lease: { owner: 'worker-a', ms: 0 } });
      const { rows: released } = await pool.query(
        `SELECT lease_owner, lease_until FROM ${table} WHERE run_id = $1`,
        [runId],
      );
      expect(released).toEqual([{ lease_owner: null, lease_until: null }]);
    });

    it('upgrades a table of the first release: migrate() adds the lease columns, old rows keep working', async () => {
      const { pool } = connection;
      const table = `turnkit_old_${randomUUID().replaceAll('-', '')}`;
      try {
        // Exactly what the first release's migrate() and put wrote.
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${table} (
            run_id text PRIMARY KEY,
            version integer NOT NULL,
            snapshot text NOT NULL,
            expires_at timestamptz,
            updated_at timestamptz NOT NULL DEFAULT now()
          )`,
        );
        await pool.query(
          `CREATE INDEX IF NOT EXISTS ${table}_expires_at_idx ON ${table} (expires_at) WHERE expires_at IS NOT NULL`,
        );
        await pool.query(
          `INSERT INTO ${table} (run_id, version, snapshot, expires_at, updated_at)
           VALUES ($1, 1, $2, $3, now()) ON CONFLICT (run_id) DO NOTHING RETURNING version`,
          ['old-run', '{"old":true}', '2001-01-01T00:00:00.000Z'],
        );
        await pool.query(
          `UPDATE ${table} SET version = version + 1, snapshot = $3, expires_at = $4, updated_at = now()
           WHERE run_id = $1 AND version = $2 RETURNING version`,
          ['old-run', 1, '{"old":2}', '2001-01-01T00:00:00.000Z'],
        );
        const store = postgresStore(pool, { table });
        // Before migrate(): an error that says what to do, not a bare "column does not exist".
        await expect(store.get('old-run')).rejects.toThrow(/Run `await store.migrate\(\)` once/);
        await store.migrate();
        await store.migrate();
        expect(await store.get('old-run')).toMatchObject({ snapshot: '{"old":2}', version: 2, lease: null });
        expect(await store.listExpired(new Date('2001-01-02T00:00:00.000Z'))).toEqual(['old-run']);
        await expect(store.renew('old-run', { owner: 'worker-a', version: 2, ms: 1000 })).rejects.toThrow(
          ConflictError,
        );
        await store.put('old-run', '{"new":true}', {
          expectedVersion: 2,
          lease: { owner: 'worker-a', ms: 60_000 },
        });
        expect(await store.get('old-run')).toMatchObject({
          snapshot: '{"new":true}',
          version: 3,
          lease: { owner: 'worker-a', live: true },
        });
      } finally {
        await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending, ${table}_pts`);
      }
    });

    it('rebuilds the log key of an earlier release once: its rows read as before, and a long write lands in several rows (issue 43)', async () => {
      const { pool } = connection;
      const table = `turnkit_key_${randomUUID().replaceAll('-', '')}`;
      const store = postgresStore(pool, { table });
      try {
        await store.migrate();
        // The log table as the previous release left it: keyed by (run_id, version), no part.
        await pool.query(`ALTER TABLE ${table}_log DROP CONSTRAINT ${table}_log_pkey, DROP COLUMN part`);
        await pool.query(`ALTER TABLE ${table}_log ADD PRIMARY KEY (run_id, version)`);
        const head = (label: string) => `{"layout":2,"at":[0,0],"messages":0,"resolved":0}\n${label}`;
        await pool.query(
          `INSERT INTO ${table} (run_id, version, head, log_from, log_length, log_window) VALUES ('old', 2, $1, 1, 5, 4)`,
          [head('old')],
        );
        await pool.query(
          `INSERT INTO ${table}_log (run_id, version, messages, resolved, log_at)
           VALUES ('old', 1, '1,2', '"a"', 0), ('old', 2, '3', '', 4)`,
        );
        await store.migrate();
        await store.migrate();
        expect(await store.getParts('old', { transcript: 'window' })).toMatchObject({
          messages: '3',
          messagesAt: 4,
          resolved: '"a"',
        });
        // One write cut in three: three rows of version 3, read back in order, the window from its last.
        await store.putParts(
          'old',
          {
            head: head('new'),
            mode: 'append',
            messages: '44,55,66',
            cuts: [2, 5],
            resolved: '"b"',
            windowAt: 13,
          },
          { expectedVersion: 2 },
        );
        const { rows } = await pool.query(
          `SELECT version, part, messages, resolved, log_at::int AS log_at FROM ${table}_log
           WHERE run_id = 'old' ORDER BY version, part`,
        );
        expect(rows).toEqual([
          { version: 1, part: 0, messages: '1,2', resolved: '"a"', log_at: 0 },
          { version: 2, part: 0, messages: '3', resolved: '', log_at: 4 },
          { version: 3, part: 0, messages: '44', resolved: '"b"', log_at: 6 },
          { version: 3, part: 1, messages: '55', resolved: '', log_at: 9 },
          { version: 3, part: 2, messages: '66', resolved: '', log_at: 12 },
        ]);
        expect(await store.getParts('old')).toMatchObject({
          messages: '1,2,3,44,55,66',
          resolved: '"a","b"',
        });
        expect(await store.getParts('old', { transcript: 'window' })).toMatchObject({
          messages: '66',
          messagesAt: 12,
          resolved: '"a","b"',
        });
        await store.putParts(
          'old',
          { head: head('next'), mode: 'append', messages: '7', resolved: '', windowAt: 9 },
          {
            expectedVersion: 3,
          },
        );
        expect(await store.getParts('old', { transcript: 'window' })).toMatchObject({
          messages: '55,66,7',
          messagesAt: 9,
        });
      } finally {
        await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending, ${table}_pts`);
      }
    });

    it('reads a run whose log rows predate log_at whole, even with a window, until its next rewrite (issue 33)', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table });
      await store.migrate();
      const runId = freshRunId('legacy-offsets');
      const head = (label: string) => `{"layout":2,"at":[0,0],"messages":0,"resolved":0}\n${label}`;
      await store.putParts(
        runId,
        { head: head('a'), mode: 'rewrite', messages: '1,2', resolved: '' },
        {
          expectedVersion: null,
        },
      );
      // As an earlier release left it: no offsets on the run's row or its log rows.
      await pool.query(`UPDATE ${table} SET log_length = NULL, log_window = NULL WHERE run_id = $1`, [runId]);
      await pool.query(`UPDATE ${table}_log SET log_at = NULL WHERE run_id = $1`, [runId]);
      await store.putParts(
        runId,
        { head: head('b'), mode: 'append', messages: '3', resolved: '', windowAt: 4 },
        {
          expectedVersion: 1,
        },
      );
      const read = await store.getParts(runId, { transcript: 'window' });
      expect(read).toMatchObject({ messages: '1,2,3', version: 2 });
      expect(read).not.toHaveProperty('messagesAt');
      // A rewrite records offsets again: the next append's window read skips the first chunk.
      await store.putParts(
        runId,
        { head: head('c'), mode: 'rewrite', messages: '1,2', resolved: '' },
        {
          expectedVersion: 2,
        },
      );
      await store.putParts(
        runId,
        { head: head('d'), mode: 'append', messages: '3', resolved: '', windowAt: 4 },
        {
          expectedVersion: 3,
        },
      );
      expect(await store.getParts(runId, { transcript: 'window' })).toMatchObject({
        messages: '3',
        messagesAt: 4,
      });
    });

    it('keeps a run in row layout 2: a small row, and one log row per write that appended', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table });
      await store.migrate();
      const runId = freshRunId('layout2');
      await store.putParts(
        runId,
        {
          head: '{"layout":2,"at":[1,2],"messages":0,"resolved":0}\n[[',
          mode: 'rewrite',
          messages: '1',
          resolved: '',
        },
        { expectedVersion: null },
      );
      for (const version of [1, 2]) {
        await store.putParts(
          runId,
          {
            head: '{"layout":2,"at":[1,2],"messages":0,"resolved":0}\n[[',
            mode: 'append',
            messages: '',
            resolved: version === 1 ? '' : '"r"',
          },
          { expectedVersion: version },
        );
      }
      const { rows } = await pool.query(
        `SELECT version, snapshot, log_from FROM ${table} WHERE run_id = $1`,
        [runId],
      );
      expect(rows).toEqual([{ version: 3, snapshot: null, log_from: 1 }]);
      const { rows: log } = await pool.query(
        `SELECT version, messages, resolved FROM ${table}_log WHERE run_id = $1 ORDER BY version`,
        [runId],
      );
      expect(log).toEqual([
        { version: 1, messages: '1', resolved: '' },
        { version: 3, messages: '', resolved: '"r"' },
      ]);
      await store.delete(runId);
      expect((await pool.query(`SELECT 1 FROM ${table}_log WHERE run_id = $1`, [runId])).rows).toEqual([]);
    });

    it('resumes a row the previous release wrote (its table, its put) and rewrites it as layout 2', async () => {
      const { pool } = connection;
      const table = `turnkit_prev_${randomUUID().replaceAll('-', '')}`;
      try {
        // Exactly what the previous release's migrate() and put wrote.
        await pool.query(
          `CREATE TABLE ${table} (run_id text PRIMARY KEY, version integer NOT NULL, snapshot text NOT NULL,
             expires_at timestamptz, updated_at timestamptz NOT NULL DEFAULT now(), lease_owner text,
             lease_until timestamptz)`,
        );
        const agent = approvalAgent(20);
        const paused = await runTurn(agent, { input: priorMessages(20), runId: freshRunId('prev') });
        await pool.query(
          `INSERT INTO ${table} (run_id, version, snapshot, expires_at, updated_at, lease_owner, lease_until)
           VALUES ($1, 1, $2, $3, now(), NULL, NULL) ON CONFLICT (run_id) DO NOTHING RETURNING version`,
          [paused.runId, paused.snapshot, null],
        );
        const store = postgresStore(pool, { table });
        await store.migrate();
        await expectResumedAsLayout2(store, agent, paused.runId);
      } finally {
        await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending, ${table}_pts`);
      }
    });

    it('accepts a schema-qualified table', async () => {
      const { pool, table } = connection;
      const store = postgresStore(pool, { table: `public.${table}` });
      await store.migrate();
      const runId = freshRunId('schema');
      await store.put(runId, 'x', { expectedVersion: null });
      expect(await postgresStore(pool, { table }).get(runId)).toMatchObject({
        snapshot: 'x',
        version: 1,
        lease: null,
      });
    });

    it('creates every index with the longest table name it accepts, and refuses one character more', async () => {
      const table = `t${Date.now().toString(36)}_`.padEnd(55, 'x');
      expect(() => postgresStore(connection.pool, { table: `${table}x` })).toThrow(TurnkitError);
      const store = postgresStore(connection.pool, { table });
      try {
        await store.migrate();
        const { rows } = await connection.pool.query<{ indexname: string }>(
          'SELECT indexname FROM pg_indexes WHERE tablename IN ($1, $2)',
          [table, `${table}_pending`],
        );
        const names = rows.map((row) => row.indexname);
        // Five distinct indexes besides the primary keys: none lost to a name PostgreSQL cut.
        expect(names.filter((name) => name.endsWith('_idx'))).toHaveLength(5);
        for (const suffix of [
          '_pending_order_idx',
          '_pending_principal_idx',
          '_pending_assignees_idx',
          '_pending_kind_idx',
          '_expires_at_idx',
        ]) {
          expect(names.some((name) => name.endsWith(suffix) && name.length <= 63)).toBe(true);
        }
      } finally {
        await connection.pool.query(
          `DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending, ${table}_pts`,
        );
      }
    });

    it.each(['runs; DROP TABLE users', 'my-table', '1runs', 'a.b.c', '"quoted"', '', 'x'.repeat(56)])(
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
