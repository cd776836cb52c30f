/**
 * postgresEventHub (DESIGN §17): the shared hub contract on a real PostgreSQL, then what is its
 * own — the table and the NOTIFY payload, trimming by age, a missing table, and a listening
 * connection that is terminated and replaced.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../src/events/hub.js';
import { postgresEventHub } from '../src/events/hubs/postgres.js';
import { describeSharedHubContract } from './event-hub-contract.js';
import { collector, event, hubRunId, names, seqs, state } from './helpers/hub-fixtures.js';
import { serverUrl } from './store-servers.js';

const url = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');

/** A table and channel of its own, pools on it, and a teardown that drops the table. */
function postgresBackend() {
  const tag = randomBytes(6).toString('hex');
  const table = `turnkit_events_test_${tag}`;
  const channel = `turnkit_events_test_${tag}`;
  const pools: pg.Pool[] = [];
  const connect = () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pools.push(pool);
    return pool;
  };
  const teardown = async () => {
    await connect().query(`DROP TABLE IF EXISTS ${table}`);
    await Promise.all(pools.map((pool) => pool.end()));
  };
  return { table, channel, connect, teardown };
}

describe.skipIf(!url)('postgresEventHub', () => {
  describeSharedHubContract('postgresEventHub', async () => {
    const backend = postgresBackend();
    await postgresEventHub(backend.connect(), { table: backend.table }).migrate();
    return {
      open: async (errors) =>
        postgresEventHub(backend.connect(), {
          table: backend.table,
          channel: backend.channel,
          onError: (error) => errors.push(error),
        }),
      teardown: backend.teardown,
    };
  });

  describe('storage', () => {
    const backend = postgresBackend();
    const errors: unknown[] = [];
    let admin: pg.Pool;
    const hubs: EventHub[] = [];
    const open = (options: { retainMs?: number } = {}) => {
      const hub = postgresEventHub(backend.connect(), {
        table: backend.table,
        channel: backend.channel,
        onError: (error) => errors.push(error),
        ...options,
      });
      hubs.push(hub);
      return hub;
    };
    beforeAll(async () => {
      admin = backend.connect();
      await open().migrate();
    });
    afterAll(async () => {
      await Promise.all(hubs.map((hub) => hub.close()));
      await backend.teardown();
    });

    it('keeps messages as rows (run_id, seq, state, event, data) and notifies only { runId, seq }', async () => {
      const listener = await admin.connect();
      const notified: string[] = [];
      listener.on('notification', (message) => notified.push(message.payload ?? ''));
      await listener.query(`LISTEN "${backend.channel}"`);
      const hub = open();
      const runId = hubRunId('layout');
      void hub.publish(runId, event(runId, 1, 'turn_started'));
      void hub.publish(runId, event(runId, 2, 'model_finished'));
      await hub.publish(runId, state(runId, 2));
      const { rows } = await admin.query(
        `SELECT run_id, seq::int, state, event, data FROM ${backend.table} WHERE run_id = $1 ORDER BY seq, state`,
        [runId],
      );
      expect(rows).toEqual([
        {
          run_id: runId,
          seq: 1,
          state: false,
          event: 'turn_started',
          data: JSON.stringify(event(runId, 1, 'turn_started').data),
        },
        {
          run_id: runId,
          seq: 2,
          state: false,
          event: 'model_finished',
          data: JSON.stringify(event(runId, 2, 'model_finished').data),
        },
        { run_id: runId, seq: 2, state: true, event: 'state', data: JSON.stringify(state(runId, 2).data) },
      ]);
      await admin.query('SELECT 1');
      await listener.query('SELECT 1');
      listener.release();
      expect(notified.length).toBeGreaterThan(0);
      for (const payload of notified) {
        expect(Object.keys(JSON.parse(payload))).toEqual(['runId', 'seq']);
        expect(Buffer.byteLength(payload)).toBeLessThan(8000);
      }
      expect(JSON.parse(notified.at(-1)!)).toEqual({ runId, seq: 2 });
    });

    it('trim() deletes the rows older than retainMs', async () => {
      const runId = hubRunId('trim');
      await open().publish(runId, event(runId, 1));
      await admin.query('SELECT pg_sleep(0.01)');
      expect(
        await (open({ retainMs: 1 }) as ReturnType<typeof postgresEventHub>).trim(),
      ).toBeGreaterThanOrEqual(1);
      const { rows } = await admin.query(`SELECT 1 FROM ${backend.table} WHERE run_id = $1`, [runId]);
      expect(rows).toEqual([]);
      const resumed = await open().subscribe(runId, () => {}, { after: 1 });
      expect(resumed.resumed).toBe(false);
      resumed.unsubscribe();
    });

    it('takes another listening connection when its own is terminated, and reads what it missed', async () => {
      const seen: unknown[] = [];
      const reader = postgresEventHub(backend.connect(), {
        table: backend.table,
        channel: backend.channel,
        onError: (error) => seen.push(error),
      });
      hubs.push(reader);
      const writer = open();
      const runId = hubRunId('terminated');
      const got = collector();
      await reader.subscribe(runId, got.listener, { after: 0 });
      await writer.publish(runId, event(runId, 1));
      await got.until(1);
      const { rows } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`,
        [`LISTEN "${backend.channel}"`],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const seq of seqs(2, 5)) void writer.publish(runId, event(runId, seq));
      await writer.publish(runId, state(runId, 5));
      await got.until(6);
      expect(got.seen()).toEqual(names(seqs(1, 5), [5]));
      expect(seen.length).toBeGreaterThan(0);
    });
  });

  it('says to run migrate() when its table is missing', async () => {
    const backend = postgresBackend();
    const errors: unknown[] = [];
    const hub = postgresEventHub(backend.connect(), {
      table: backend.table,
      channel: backend.channel,
      onError: (error) => errors.push(error),
    });
    const runId = hubRunId('missing');
    await hub.publish(runId, event(runId, 1));
    expect(errors).toEqual([
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('migrate()') }),
    ]);
    await expect(hub.subscribe(runId, () => {}, { after: 0 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await hub.close();
    await backend.teardown();
  });

  it('refuses options that cannot work', () => {
    const pool = new pg.Pool({ connectionString: url });
    const invalid = expect.objectContaining({ code: 'CONFIG_INVALID' });
    expect(() => postgresEventHub(pool, { table: 'events; DROP TABLE x' })).toThrow(invalid);
    expect(() => postgresEventHub(pool, { channel: 'a"b' })).toThrow(invalid);
    expect(() => postgresEventHub(pool, { retainMs: 0 })).toThrow(invalid);
    void pool.end();
  });
});
