/**
 * `postgresEventHub(pool)`: an event hub shared by every process on one PostgreSQL database. The
 * messages are rows of a `turnkit_events` table, keyed by run, `seq` and whether the row is the
 * `state` after that event; `NOTIFY` only says which run has new rows (`{ runId, seq }`, far
 * below its 8 000-byte payload limit), and each process reads the new rows of the runs it has
 * listeners for, on one listening connection (postgres-listen.ts).
 */
import { TurnkitError } from '@turnkit/core';
import { checkCount } from '../counts.js';
import type { EventHub, HubMessage } from '../hub.js';
import { type PgListenClient, pgListener } from './postgres-listen.js';
import { type Entry, PAGE_SIZE, type SharedHub, sharedHub } from './shared.js';

/** What the hub needs from node-postgres: a `pg.Pool` (it must allow at least two connections). */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  connect(): Promise<PgListenClient>;
}

/** Options of {@link postgresEventHub}. */
export interface PostgresEventHubOptions {
  /** Table name, optionally schema-qualified (`schema.table`); plain identifiers only. Default `turnkit_events`. */
  table?: string | undefined;
  /** The `NOTIFY` channel (a plain identifier). Default `turnkit_events`. */
  channel?: string | undefined;
  /** How long rows are kept; older ones are deleted by `trim()`, which publishing runs every minute. Default 3 600 000 (1 h). */
  retainMs?: number | undefined;
  /** Receives what goes wrong with PostgreSQL (a lost connection, a failed write). Default: `console.error`. */
  onError?: (error: unknown) => void;
}

/** A PostgreSQL {@link EventHub}, plus its table's migration and trimming. */
export interface PostgresEventHub extends EventHub {
  /** Creates the table and its index if they do not exist (idempotent): run it once at deploy time. */
  migrate(): Promise<void>;
  /** Deletes the rows older than `retainMs`; returns how many. */
  trim(): Promise<number>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** PostgreSQL's "undefined table": `migrate()` has not run. */
const UNDEFINED_TABLE = '42P01';

/** How often publishing trims, at most. */
const TRIM_EVERY_MS = 60_000;

/** A row as node-postgres returns it: `bigint` as a string by default, as a number if so configured. */
type Row = { seq: string | number; state: boolean; event: string; data: string };

const toEntry = (row: Row): Entry => {
  const message: HubMessage = { event: row.event, id: String(row.seq), data: JSON.parse(row.data) };
  return { position: Number(row.seq) * 2 + (row.state ? 1 : 0), message };
};

function invalid(message: string): TurnkitError {
  return new TurnkitError('CONFIG_INVALID', `postgresEventHub: ${message}`);
}

/**
 * An {@link EventHub} on PostgreSQL (node-postgres), shared by every handler process on the same
 * database, table and channel. `migrate()` runs this SQL (with your table name):
 *
 * ```sql
 * CREATE TABLE IF NOT EXISTS turnkit_events (
 *   run_id     text NOT NULL,
 *   seq        bigint NOT NULL,
 *   state      boolean NOT NULL,          -- the run's state after event `seq`
 *   event      text NOT NULL,
 *   data       text NOT NULL,             -- the message's JSON
 *   created_at timestamptz NOT NULL DEFAULT now(),
 *   PRIMARY KEY (run_id, seq, state)
 * );
 * CREATE INDEX IF NOT EXISTS turnkit_events_created_at_idx ON turnkit_events (created_at);
 * ```
 *
 * A batch of a run's messages is one statement: the rows placed after the run's last row are
 * inserted (`ON CONFLICT DO NOTHING`), and `pg_notify(channel, '{"runId":…,"seq":…}')` is sent
 * when any was. Rows older than `retainMs` are deleted by `trim()`; publishing calls it every
 * minute at most. `close()` ends every subscription, releases the listening connection and waits
 * for pending writes; it never ends the pool.
 *
 * Node only: node-postgres (TCP sockets) and a `LISTEN` connection that lives as long as the
 * process, which serverless runtimes do not keep.
 */
export function postgresEventHub(pool: PgPool, options: PostgresEventHubOptions = {}): PostgresEventHub {
  const table = options.table ?? 'turnkit_events';
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw invalid(
      `table ${JSON.stringify(table)} is not a plain identifier. Use letters, digits and _ (not starting with a digit, at most 63 characters), optionally as schema.table.`,
    );
  }
  const channel = options.channel ?? 'turnkit_events';
  if (typeof channel !== 'string' || !IDENTIFIER.test(channel)) {
    throw invalid(`channel ${JSON.stringify(channel)} is not a plain identifier (letters, digits, _).`);
  }
  checkCount(options.retainMs, 'retainMs', 'postgresEventHub');
  const retainMs = options.retainMs ?? 3_600_000;
  const onError = options.onError ?? ((error: unknown) => console.error('[turnkit/postgresEventHub]', error));
  const indexName = `${parts[parts.length - 1]}_created_at_idx`;

  const query = async <T>(
    text: string,
    values: unknown[],
  ): Promise<{ rows: T[]; rowCount: number | null }> => {
    try {
      return (await pool.query(text, values)) as { rows: T[]; rowCount: number | null };
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== UNDEFINED_TABLE) throw error;
      throw invalid(`table ${table} does not exist: run \`await hub.migrate()\` once.`);
    }
  };

  /** Where reading is, per followed run: the place read up to, and whether a read is running. */
  const runs = new Map<string, { position: number; reading: boolean; again: boolean }>();
  let closed = false;
  let lastTrim = Date.now();
  let shared: SharedHub;

  /** Reads the run's rows after where reading is, until none is left (again if notified meanwhile). */
  async function pump(runId: string): Promise<void> {
    const run = runs.get(runId);
    if (!run) return;
    if (run.reading) {
      run.again = true;
      return;
    }
    run.reading = true;
    try {
      do {
        run.again = false;
        let page: Entry[];
        do {
          page = await range(runId, run.position + 1);
          if (page.length === 0 || runs.get(runId) !== run) break;
          run.position = page[page.length - 1]!.position;
          shared.deliverNew(runId, page);
        } while (page.length === PAGE_SIZE);
      } while (run.again && runs.get(runId) === run);
    } catch (error) {
      onError(error);
    } finally {
      run.reading = false;
    }
  }

  async function range(runId: string, from: number): Promise<Entry[]> {
    const { rows } = await query<Row>(
      `SELECT seq, state, event, data FROM ${table}
        WHERE run_id = $1 AND (seq, state) >= ($2::bigint, $3::boolean)
        ORDER BY seq, state LIMIT ${PAGE_SIZE}`,
      [runId, Math.floor(from / 2), from % 2 === 1],
    );
    return rows.map(toEntry);
  }

  const connection = pgListener({
    connect: () => pool.connect(),
    channel,
    onNotification(notification) {
      let runId: unknown;
      try {
        runId = (JSON.parse(notification.payload ?? '') as { runId?: unknown }).runId;
      } catch {
        return;
      }
      if (typeof runId === 'string' && runs.has(runId)) void pump(runId);
    },
    onReconnect() {
      for (const runId of runs.keys()) void pump(runId);
    },
    needed: () => !closed && runs.size > 0,
    onError,
  });

  async function trim(): Promise<number> {
    const { rowCount } = await query(
      `DELETE FROM ${table} WHERE created_at < now() - $1::float8 * interval '1 millisecond'`,
      [retainMs],
    );
    return rowCount ?? 0;
  }

  shared = sharedHub(
    'postgresEventHub',
    {
      range,
      async top(runId) {
        const { rows } = await query<Pick<Row, 'seq' | 'state'>>(
          `SELECT seq, state FROM ${table} WHERE run_id = $1 ORDER BY seq DESC, state DESC LIMIT 1`,
          [runId],
        );
        const [last] = rows;
        return last ? Number(last.seq) * 2 + (last.state ? 1 : 0) : -1;
      },
      follow(runId, position) {
        runs.set(runId, { position, reading: false, again: false });
        // A notification may have come between the catch-up read and now.
        void pump(runId);
      },
      unfollow(runId) {
        runs.delete(runId);
      },
      async write(runId, entries) {
        const seqs = entries.map((entry) => Math.floor(entry.position / 2));
        await query(
          `WITH batch AS (
           SELECT * FROM unnest($2::bigint[], $3::boolean[], $4::text[], $5::text[]) AS b(seq, state, event, data)
         ), added AS (
           INSERT INTO ${table} (run_id, seq, state, event, data)
           SELECT $1, b.seq, b.state, b.event, b.data FROM batch b
            WHERE NOT EXISTS (SELECT 1 FROM ${table} e WHERE e.run_id = $1 AND (e.seq, e.state) >= (b.seq, b.state))
           ON CONFLICT DO NOTHING
           RETURNING 1
         )
         SELECT pg_notify($6, $7) WHERE EXISTS (SELECT 1 FROM added)`,
          [
            runId,
            seqs,
            entries.map((entry) => entry.position % 2 === 1),
            entries.map((entry) => entry.message.event),
            entries.map((entry) => JSON.stringify(entry.message.data ?? null)),
            channel,
            JSON.stringify({ runId, seq: seqs[seqs.length - 1] }),
          ],
        );
        if (Date.now() - lastTrim >= Math.min(TRIM_EVERY_MS, retainMs)) {
          lastTrim = Date.now();
          trim().catch(onError);
        }
      },
    },
    onError,
  );

  return {
    publish: shared.publish,
    async subscribe(runId, listener, subscribeOptions) {
      // Listening first: a row added after the catch-up read is then always notified. (A closed
      // hub takes no connection: the shared part refuses the subscription.)
      if (!closed) await connection.listen();
      return shared.subscribe(runId, listener, subscribeOptions);
    },
    listeners: shared.listeners,
    async close() {
      closed = true;
      await shared.close();
      runs.clear();
      await connection.close();
    },
    async migrate() {
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
          run_id text NOT NULL,
          seq bigint NOT NULL,
          state boolean NOT NULL,
          event text NOT NULL,
          data text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (run_id, seq, state)
        )`,
      );
      await pool.query(`CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (created_at)`);
    },
    trim,
  };
}
