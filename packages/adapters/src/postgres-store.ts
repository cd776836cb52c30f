/**
 * `postgresStore(pool)`: a SnapshotStore on PostgreSQL (node-postgres), for many stateless workers
 * sharing runs. Compare-and-set is a single conditional UPDATE (or INSERT … ON CONFLICT DO NOTHING),
 * so the database's row locking decides every race.
 */
import { type SnapshotStore, type StoredSnapshot, staleWriteError, TurnkitError } from '@turnkit/core';

/**
 * What the store needs from node-postgres: a `pg.Pool` (recommended), a `pg.Client` or a
 * `PoolClient` all fit. Declared here so the types do not require `@types/pg`.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** Table name, optionally schema-qualified (`schema.table`); plain identifiers only. Default `turnkit_runs`. */
  table?: string;
}

/** A {@link SnapshotStore} on PostgreSQL, plus `migrate()` to create its table. */
export interface PostgresStore extends SnapshotStore {
  /** Creates the table and its index if they do not exist (idempotent). Run it once at deploy time. */
  migrate(): Promise<void>;
  listExpired(now: Date): Promise<string[]>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A {@link SnapshotStore} on PostgreSQL. `migrate()` runs this SQL (with your table name):
 *
 * ```sql
 * CREATE TABLE IF NOT EXISTS turnkit_runs (
 *   run_id     text PRIMARY KEY,
 *   version    integer NOT NULL,
 *   snapshot   text NOT NULL,
 *   expires_at timestamptz,
 *   updated_at timestamptz NOT NULL DEFAULT now()
 * );
 * CREATE INDEX IF NOT EXISTS turnkit_runs_expires_at_idx
 *   ON turnkit_runs (expires_at) WHERE expires_at IS NOT NULL;
 * ALTER TABLE turnkit_runs ALTER COLUMN snapshot SET COMPRESSION lz4; -- where the server supports it
 * ```
 *
 * `put` with `expectedVersion: null` is `INSERT … ON CONFLICT (run_id) DO NOTHING`; otherwise
 * `UPDATE … SET version = version + 1 … WHERE run_id = $1 AND version = $2`. No row written ⇒
 * `ConflictError`. Snapshots are stored as `text`: TurnKit snapshots are JSON, whose escapes keep
 * NUL and lone surrogates out of the column.
 *
 * @param pool A `pg.Pool` (or anything with its `query`); the store never ends it.
 */
export function postgresStore(pool: PgQueryable, options: PostgresStoreOptions = {}): PostgresStore {
  const table = options.table ?? 'turnkit_runs';
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `postgresStore: table ${JSON.stringify(table)} is not a plain identifier. Use letters, digits and ` +
        '_ (not starting with a digit, at most 63 characters), optionally as schema.table.',
    );
  }
  // An index name cannot be schema-qualified: it is created in the table's schema.
  const indexName = `${parts[parts.length - 1]}_expires_at_idx`;

  const currentVersion = async (runId: string): Promise<number | null> => {
    const { rows } = await pool.query(`SELECT version FROM ${table} WHERE run_id = $1`, [runId]);
    return (rows[0] as { version: number } | undefined)?.version ?? null;
  };

  return {
    async migrate() {
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
        `CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (expires_at) WHERE expires_at IS NOT NULL`,
      );
      // Compressing the large snapshot column dominates each write; lz4 (PostgreSQL 14+, when built
      // with it) halves a 1000-message resume against the default pglz. Older servers keep pglz.
      await pool
        .query(`ALTER TABLE ${table} ALTER COLUMN snapshot SET COMPRESSION lz4`)
        .catch(() => undefined);
    },

    async get(runId): Promise<StoredSnapshot | null> {
      const { rows } = await pool.query(`SELECT snapshot, version FROM ${table} WHERE run_id = $1`, [runId]);
      const row = rows[0] as StoredSnapshot | undefined;
      return row ? { snapshot: row.snapshot, version: row.version } : null;
    },

    async put(runId, snapshot, opts) {
      const expiresAt = opts.expiresAt ?? null;
      const { rows } =
        opts.expectedVersion === null
          ? await pool.query(
              `INSERT INTO ${table} (run_id, version, snapshot, expires_at, updated_at)
               VALUES ($1, 1, $2, $3, now())
               ON CONFLICT (run_id) DO NOTHING
               RETURNING version`,
              [runId, snapshot, expiresAt],
            )
          : await pool.query(
              `UPDATE ${table}
               SET version = version + 1, snapshot = $3, expires_at = $4, updated_at = now()
               WHERE run_id = $1 AND version = $2
               RETURNING version`,
              [runId, opts.expectedVersion, snapshot, expiresAt],
            );
      const written = rows[0] as { version: number } | undefined;
      if (!written) throw staleWriteError(runId, opts.expectedVersion, await currentVersion(runId));
      return { version: written.version };
    },

    async delete(runId) {
      await pool.query(`DELETE FROM ${table} WHERE run_id = $1`, [runId]);
    },

    async listExpired(now) {
      const { rows } = await pool.query(
        `SELECT run_id FROM ${table} WHERE expires_at <= $1 ORDER BY expires_at, run_id`,
        [now.toISOString()],
      );
      return (rows as { run_id: string }[]).map((row) => row.run_id);
    },
  };
}
