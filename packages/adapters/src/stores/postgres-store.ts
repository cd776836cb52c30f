/**
 * `postgresStore(pool)`: a SnapshotStore on PostgreSQL (node-postgres), for many stateless workers
 * sharing runs. Every write is one conditional statement (UPDATE … WHERE, or INSERT … ON CONFLICT DO
 * NOTHING) that checks the version and the lease on the database's own clock (`clock_timestamp()`),
 * so the database's row locking decides every race and no worker's clock is ever consulted. Runs
 * are kept in row layout 2 (DESIGN §17): a small row (head, version, lease) plus one log row per
 * write that appended (several for a long text, DESIGN §22), inserted by the same statement, so
 * each write sends only what is new.
 */
import { type KeepHistory, type SnapshotStore, TurnkitError } from '@turnkit/core';
import {
  assembleSnapshot,
  checkLeaseMs,
  leaseHeldError,
  logChunks,
  notInPartsError,
  type PendingItem,
  type PutOptions,
  pendingKey,
  pointsToKeep,
  type QueuedMessage,
  type StoredParts,
  type StoredSnapshot,
  staleWriteError,
  stopMarkOf,
} from '@turnkit/core/store';

/**
 * What the store needs from node-postgres: a `pg.Pool` (recommended), a `pg.Client` or a
 * `PoolClient` all fit. Declared here so the types do not require `@types/pg`.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** A named (prepared) statement, as node-postgres takes it: used unless `prepare: false`. */
  query(config: PgNamedQuery): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** A statement node-postgres prepares once per connection under `name`, then only binds and runs. */
export interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** Table name, optionally schema-qualified (`schema.table`); plain identifiers only. Default `turnkit_runs`. */
  table?: string | undefined;
  /**
   * How many points of each run to keep for `sessions.history` and `sessions.fork` (default: all).
   * A point is a row of `<table>_pts`: the version's head and where its logs then began.
   */
  keepHistory?: KeepHistory;
  /**
   * Send the store's statements as named prepared statements (default `true`): PostgreSQL then plans
   * each one once per connection instead of on every call, which halves a write's time (issue 49).
   * Set `false` behind a pooler in transaction mode that cannot keep prepared statements (PgBouncer
   * before 1.21, or without `max_prepared_statements`), or with a client that takes only `(text, values)`.
   */
  prepare?: boolean | undefined;
}

/** A {@link SnapshotStore} on PostgreSQL, plus `migrate()` to create or upgrade its table. */
export interface PostgresStore extends SnapshotStore {
  /**
   * Creates the tables (runs, and their logs for row layout 2) and the index if they do not exist,
   * and adds the columns of this release to a table made by an earlier one (idempotent). Run it
   * once at deploy time, and once after upgrading.
   */
  migrate(): Promise<void>;
  getParts: NonNullable<SnapshotStore['getParts']>;
  getHead: NonNullable<SnapshotStore['getHead']>;
  putParts: NonNullable<SnapshotStore['putParts']>;
}

/** Names of the statements prepared so far, by text (each text is one of a few per store). */
const statementNames = new Map<string, string>();

/**
 * The name a statement is prepared under: a hash of its text (FNV-1a) and its length, so two texts
 * never share a name on a connection (node-postgres refuses that), whichever store sent them.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < text.length; index++) {
      hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
    }
    name = `turnkit_${(hash >>> 0).toString(36)}_${text.length.toString(36)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** A plain identifier (PostgreSQL keeps 63 characters of a name). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The longest a table's own name may be: its longest derived table, `<table>_pending`, must fit
 * PostgreSQL's 63 characters (PostgreSQL would cut it, and two cut names could meet).
 */
const MAX_TABLE_NAME = 63 - '_pending'.length;

/**
 * An index's name: `<table><suffix>`, or, when that would pass 63 characters (which PostgreSQL
 * would cut, and `CREATE INDEX IF NOT EXISTS` would then find the cut name taken by a sibling index
 * and silently create nothing), the table's name shortened and marked with a hash of it.
 */
function indexNameOf(bare: string, suffix: string): string {
  if (bare.length + suffix.length <= 63) return `${bare}${suffix}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < bare.length; i++) hash = Math.imul(hash ^ bare.charCodeAt(i), 0x01000193) >>> 0;
  const mark = `_${hash.toString(16).padStart(8, '0')}`;
  return `${bare.slice(0, 63 - suffix.length - mark.length)}${mark}${suffix}`;
}

/** PostgreSQL's "undefined column" and "undefined table": the tables predate this release. */
const MISSING_SCHEMA = new Set(['42703', '42P01']);

/** The database's clock at this instant, in epoch ms (what reads and writes give sessions as `now`). */
const CLOCK_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

/** The lease end for `ms` (a parameter) from the database's clock at this instant. */
const leaseUntil = (ms: string) => `clock_timestamp() + $${ms}::float8 * interval '1 millisecond'`;

/** The row a read returns: layout 1 has `snapshot`, layout 2 `head` and its logs joined. */
interface ReadRow {
  version: number;
  snapshot: string | null;
  head: string | null;
  messages: string | null;
  resolved: string | null;
  lease_owner: string | null;
  live: boolean;
  now: number;
  queued: QueuedMessage[] | null;
}

/** A row's queue (DESIGN §30) as reads and writes return it: absent when none. */
const queueOf = (queued: QueuedMessage[] | null | undefined) => (queued?.length ? { queued } : {});

/**
 * A {@link SnapshotStore} on PostgreSQL. `migrate()` runs this SQL (with your table name):
 *
 * ```sql
 * CREATE TABLE IF NOT EXISTS turnkit_runs (
 *   run_id      text PRIMARY KEY,
 *   version     integer NOT NULL,
 *   snapshot    text,          -- layout 1: the whole snapshot (rows written by `put`)
 *   expires_at  timestamptz,
 *   updated_at  timestamptz NOT NULL DEFAULT now(),
 *   lease_owner text,
 *   lease_until timestamptz,
 *   head        text,          -- layout 2: the head (rows written by `putParts`)
 *   log_from    integer,       -- layout 2: the version that last rewrote the logs
 *   lease_stop  text,          -- a stop request on the lease (`requestStop`): its reason, '' for none
 *   log_length  bigint,        -- layout 2: the transcript log's length (UTF-16 units; NULL: unknown)
 *   log_window  bigint,        -- layout 2: where the window starts in it (`PartsWrite.windowAt`)
 *   queued      jsonb          -- messages queued on the run (DESIGN §30): [{ id, messages }], NULL for none
 * );
 * CREATE TABLE IF NOT EXISTS turnkit_runs_log (
 *   run_id   text NOT NULL,
 *   version  integer NOT NULL, -- the write that appended this chunk
 *   messages text NOT NULL,
 *   resolved text NOT NULL,
 *   log_at   bigint,           -- where this chunk's messages start in the transcript log (NULL: unknown)
 *   part     integer NOT NULL DEFAULT 0, -- the chunk's place among its write's (a long text is cut)
 *   PRIMARY KEY (run_id, version, part)
 * );
 * -- a table of an earlier release:
 * ALTER TABLE turnkit_runs ADD COLUMN IF NOT EXISTS lease_owner text, ADD COLUMN IF NOT EXISTS lease_until timestamptz,
 *   ADD COLUMN IF NOT EXISTS head text, ADD COLUMN IF NOT EXISTS log_from integer, ALTER COLUMN snapshot DROP NOT NULL;
 * ALTER TABLE turnkit_runs ADD COLUMN IF NOT EXISTS lease_stop text;
 * ALTER TABLE turnkit_runs ADD COLUMN IF NOT EXISTS log_length bigint, ADD COLUMN IF NOT EXISTS log_window bigint;
 * ALTER TABLE turnkit_runs ADD COLUMN IF NOT EXISTS queued jsonb;
 * ALTER TABLE turnkit_runs_log ADD COLUMN IF NOT EXISTS log_at bigint;
 * ALTER TABLE turnkit_runs_log ADD COLUMN IF NOT EXISTS part integer NOT NULL DEFAULT 0;
 * ALTER TABLE turnkit_runs_log DROP CONSTRAINT turnkit_runs_log_pkey, ADD PRIMARY KEY (run_id, version, part);
 * CREATE INDEX IF NOT EXISTS turnkit_runs_expires_at_idx
 *   ON turnkit_runs (expires_at) WHERE expires_at IS NOT NULL;
 * CREATE TABLE IF NOT EXISTS turnkit_runs_pending ( -- the inbox index (DESIGN §20)
 *   run_id text NOT NULL, id text NOT NULL, asked_ms bigint NOT NULL, kind text NOT NULL,
 *   principal text, assignees text[], expires_at timestamptz, entry jsonb NOT NULL,
 *   PRIMARY KEY (run_id, id)
 * );
 * CREATE INDEX IF NOT EXISTS turnkit_runs_pending_order_idx ON turnkit_runs_pending (asked_ms, run_id, id);
 * CREATE INDEX IF NOT EXISTS turnkit_runs_pending_principal_idx
 *   ON turnkit_runs_pending (principal, asked_ms, run_id, id);
 * CREATE INDEX IF NOT EXISTS turnkit_runs_pending_assignees_idx ON turnkit_runs_pending USING gin (assignees);
 * CREATE INDEX IF NOT EXISTS turnkit_runs_pending_kind_idx ON turnkit_runs_pending (kind, asked_ms, run_id, id);
 * ALTER TABLE … ALTER COLUMN … SET COMPRESSION lz4; -- snapshot, messages, resolved, where the server supports it
 * ```
 *
 * **Upgrading from an earlier release**: run `migrate()` once before the new code serves requests;
 * rows already stored keep working (read whole, rewritten as layout 2 by sessions' next write).
 * Until then `get`, `put` and `renew` throw `CONFIG_INVALID` saying so. The first `migrate()` of
 * this release rebuilds the log table's primary key, `(run_id, version)` → `(run_id, version,
 * part)`, under an exclusive lock: on a large table, run it at a quiet time. Upgrade every worker
 * before one writes a long text: an earlier release does not order the rows of one write.
 *
 * `put` with `expectedVersion: null` is `INSERT … ON CONFLICT (run_id) DO NOTHING`; otherwise
 * `UPDATE … SET version = version + 1 … WHERE run_id = $1 AND version = $2 AND (no lease, or it
 * ended by clock_timestamp(), or it is the writer's)`. No row written ⇒ `ConflictError`.
 * `putParts` is the same statement with data-modifying CTEs: the log chunk is inserted (a long
 * messages' text as the chunks its write allows, `PartsWrite.cuts`, one row each), and (on a
 * rewrite) the older chunks deleted, only when the run's row was written, in one statement, so a
 * refused write leaves nothing behind. The run's inbox entries (`PutOptions.pending`) are replaced
 * by the same statement; `listPending` reads them in keyset order `(asked_ms, run_id, id)`. The run's row stays small (its head), so an UPDATE copies
 * no history; `get` reads the row and joins its chunks (`string_agg`) in one statement, so head
 * and logs always come from one version. A resume (`getParts(runId, { transcript: 'window' })`,
 * DESIGN §22) joins only the chunks from the one holding the window's start (`log_at <=
 * log_window`, found backwards on the primary key) and every resolved-record chunk, so it reads
 * O(window + resolved records), not O(history), however long the write that brought the history;
 * rows whose chunks predate `log_at` are read whole until their next rewrite. Texts are stored as
 * `text`: TurnKit snapshots are JSON, whose escapes keep NUL and lone surrogates out.
 *
 * Node only: node-postgres talks to PostgreSQL over TCP sockets (`node:net`, `node:tls`), which
 * Workers and Edge runtimes lack.
 *
 * @param pool A `pg.Pool` (or anything with its `query`); the store never ends it.
 */
export function postgresStore(pool: PgQueryable, options: PostgresStoreOptions = {}): PostgresStore {
  const table = options.table ?? 'turnkit_runs';
  const names = table.split('.');
  if (
    names.length > 2 ||
    !names.every((part) => IDENTIFIER.test(part)) ||
    names[names.length - 1]!.length > MAX_TABLE_NAME
  ) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `postgresStore: table ${JSON.stringify(table)} is not a plain identifier. Use letters, digits and ` +
        `_ (not starting with a digit, at most ${MAX_TABLE_NAME} characters, so that every index name derived ` +
        "from it fits PostgreSQL's 63), optionally as schema.table.",
    );
  }
  const logTable = `${table}_log`;
  const pendingTable = `${table}_pending`;
  const pointTable = `${table}_pts`;
  const keepCount = pointsToKeep(options.keepHistory, 'postgresStore');
  const keep = keepCount === Number.POSITIVE_INFINITY ? null : keepCount;
  // An index name cannot be schema-qualified: it is created in the table's schema.
  const bare = names[names.length - 1]!;
  const indexName = indexNameOf(bare, '_expires_at_idx');

  const prepare = options.prepare !== false;
  const query = async <Row>(where: string, text: string, values: unknown[]): Promise<Row[]> => {
    try {
      const sent = prepare
        ? pool.query({ name: statementName(text), text, values })
        : pool.query(text, values);
      return (await sent).rows as Row[];
    } catch (error) {
      if (!MISSING_SCHEMA.has((error as { code?: unknown } | null)?.code as string)) throw error;
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${where}: table ${table} lacks the columns or the log table of this release: it was created by an ` +
          'earlier release. Run `await store.migrate()` once (stored runs keep working), then retry.',
        { cause: error },
      );
    }
  };

  /** Why a write or renewal matched no row: a moved version, another owner's live lease, or an append onto a whole row. */
  const refusal = async (runId: string, expected: number | null, append = false) => {
    const [row] = await query<{ version: number; parts: boolean }>(
      'postgresStore',
      `SELECT version, head IS NOT NULL AS parts FROM ${table} WHERE run_id = $1`,
      [runId],
    );
    const current = row?.version ?? null;
    if (current === null || current !== expected) return staleWriteError(runId, expected, current);
    return append && !row!.parts ? notInPartsError(runId) : leaseHeldError(runId);
  };

  /**
   * One row, whole or in parts, with its logs joined in the same statement. `window`: the
   * transcript's chunks from the one holding the window's start only (`f`, the newest chunk with
   * text that starts at or before `log_window`; none found: every chunk).
   */
  async function read(
    runId: string,
    where: string,
    window = false,
  ): Promise<StoredParts | StoredSnapshot | null> {
    const joined = (column: string, from: string) =>
      `CASE WHEN r.head IS NULL THEN NULL ELSE (SELECT coalesce(string_agg(l.${column}, ',' ORDER BY l.version, l.part)
         FILTER (WHERE l.${column} <> ''), '') FROM ${logTable} l
         WHERE l.run_id = r.run_id AND ${from}) END AS ${column}`;
    // From chunk f on: its version's later parts, then every later version (the key's range first).
    const fromWindow = `l.version >= coalesce(f.version, r.log_from)
         AND (f.version IS NULL OR l.version > f.version OR l.part >= f.part)`;
    const [row] = await query<ReadRow & { messages_at: number | null }>(
      where,
      `SELECT r.version, r.snapshot, r.head, r.lease_owner, r.lease_until > clock_timestamp() AS live,
         ${CLOCK_MS} AS now, f.log_at::float8 AS messages_at, r.queued,
         ${joined('messages', fromWindow)}, ${joined('resolved', 'l.version >= r.log_from')}
       FROM ${table} r LEFT JOIN LATERAL (
         SELECT l.version, l.part, l.log_at FROM ${logTable} l
         WHERE $2 AND r.head IS NOT NULL AND l.run_id = r.run_id AND l.version >= r.log_from
           AND l.log_at <= r.log_window AND octet_length(l.messages) > 0
         ORDER BY l.version DESC, l.part DESC LIMIT 1
       ) f ON true
       WHERE r.run_id = $1`,
      [runId, window],
    );
    if (!row) return null;
    const lease = row.lease_owner === null ? null : { owner: row.lease_owner, live: row.live };
    const queued = queueOf(row.queued);
    if (row.head === null) {
      return { snapshot: row.snapshot ?? '', version: row.version, lease, now: row.now, ...queued };
    }
    const at = row.messages_at ?? 0;
    return {
      head: row.head,
      messages: row.messages ?? '',
      ...(at > 0 ? { messagesAt: at } : {}),
      resolved: row.resolved ?? '',
      version: row.version,
      lease,
      now: row.now,
      ...queued,
    };
  }

  /**
   * Writes a row: whole (`content.snapshot`) or as parts (`content.head`, a chunk of log text, and
   * `rewrite`). The run's row is inserted or updated under the version and lease checks; the chunk
   * is inserted, and superseded chunks deleted, only if it was.
   */
  async function write(
    runId: string,
    where: string,
    content:
      | { snapshot: string }
      | {
          head: string;
          messages: string;
          cuts: number[] | undefined;
          resolved: string;
          rewrite: boolean;
          windowAt: number;
        },
    opts: PutOptions,
  ): Promise<{ version: number; now: number; queued?: QueuedMessage[] }> {
    if (opts.lease) checkLeaseMs(opts.lease.ms, where);
    // A lease of 0 ms writes as its owner and leaves the run free: nothing is stored for it.
    const owner = opts.lease?.owner ?? null;
    const keptOwner = opts.lease?.ms ? owner : null;
    const ms = opts.lease?.ms ?? 0;
    const expiresAt = opts.expiresAt ?? null;
    const parts = 'head' in content;
    const whole = parts ? null : content.snapshot;
    const head = parts ? content.head : null;
    // A long messages' text as the chunks its write allows (DESIGN §22): the first with the
    // records' text, the others as arrays (their texts and where each starts in the write's text).
    const [first, ...more] = parts ? logChunks(content.messages, content.cuts) : [{ at: 0, text: '' }];
    const chunk = [first!.text, parts ? content.resolved : ''];
    const rewrite = !parts || content.rewrite;
    // The chunk's length in UTF-16 units (what `windowAt` counts), and where the window starts.
    const added = parts ? content.messages.length : 0;
    const windowAt = parts ? content.windowAt : null;
    const created = opts.expectedVersion === null;
    const rows = await query<{ version: number; now: number; queued: QueuedMessage[] | null }>(
      where,
      `WITH written AS (${
        created
          ? `INSERT INTO ${table} (run_id, version, snapshot, head, log_from, expires_at, updated_at, lease_owner, lease_until,
                                   log_length, log_window)
             VALUES ($1, 1, $3, $4, CASE WHEN $4::text IS NULL THEN NULL ELSE 1 END, $5, now(), $7::text,
                     CASE WHEN $7::text IS NULL THEN NULL ELSE ${leaseUntil('8')} END,
                     CASE WHEN $4::text IS NULL THEN NULL ELSE $14::bigint END, $15::bigint)
             ON CONFLICT (run_id) DO NOTHING`
          : `UPDATE ${table}
             SET version = version + 1, snapshot = $3, head = $4, expires_at = $5, updated_at = now(),
                 log_from = CASE WHEN $4::text IS NULL THEN NULL WHEN $11 THEN version + 1 ELSE log_from END,
                 lease_owner = $7::text,
                 lease_until = CASE WHEN $7::text IS NULL THEN NULL ELSE ${leaseUntil('8')} END,
                 -- A stop mark stays with its lease: only the holder's own writes that keep the lease keep it.
                 lease_stop = CASE WHEN lease_owner = $7::text THEN lease_stop END,
                 -- The log's length after this chunk (a ',' between two non-empty texts); NULL stays unknown.
                 log_length = CASE WHEN $4::text IS NULL THEN NULL WHEN $11 THEN $14::bigint
                   WHEN $14::bigint = 0 THEN log_length WHEN log_length > 0 THEN log_length + 1 + $14::bigint
                   ELSE log_length + $14::bigint END,
                 log_window = $15::bigint,
                 -- The queue outlives writes (DESIGN §30): only the ids this write delivered leave it.
                 queued = (SELECT jsonb_agg(q.entry ORDER BY q.n) FROM jsonb_array_elements(queued)
                   WITH ORDINALITY AS q(entry, n) WHERE NOT (q.entry->>'id' = ANY($18::text[])))
             WHERE run_id = $1 AND version = $2
               AND (lease_owner IS NULL OR lease_until <= clock_timestamp() OR lease_owner = $6::text)
               AND ($11 OR head IS NOT NULL)`
      } RETURNING version, log_from, log_length - $14::bigint AS log_at, queued),
      dropped AS (
        DELETE FROM ${logTable} l USING written
        WHERE $11 AND l.run_id = $1 AND l.version < written.version
      ),
      added AS (
        INSERT INTO ${logTable} (run_id, version, part, messages, resolved, log_at)
        SELECT $1, written.version, 0, $9, $10, written.log_at FROM written WHERE $9 <> '' OR $10 <> ''
        UNION ALL
        SELECT $1, written.version, more.part, more.messages, '', written.log_at + more.at
        FROM written, unnest($16::text[], $17::bigint[]) WITH ORDINALITY AS more(messages, at, part)
      ),
      entries AS (
        SELECT e.value->>'id' AS id, e.value AS entry FROM jsonb_array_elements($12::jsonb) AS e
      ),
      unlisted AS (
        DELETE FROM ${pendingTable} p USING written
        WHERE p.run_id = $1 AND p.id NOT IN (SELECT id FROM entries)
      ),
      listed AS (
        INSERT INTO ${pendingTable} AS p (run_id, id, asked_ms, kind, principal, assignees, expires_at, entry)
        SELECT $1, entries.id, (extract(epoch FROM (entry->>'askedAt')::timestamptz) * 1000)::bigint,
               entry->>'kind', entry->>'principal',
               CASE WHEN entry ? 'assignees' THEN ARRAY(SELECT jsonb_array_elements_text(entry->'assignees')) END,
               (entry->>'expiresAt')::timestamptz, entry
        FROM entries, written
        ON CONFLICT (run_id, id) DO UPDATE SET asked_ms = excluded.asked_ms, kind = excluded.kind,
          principal = excluded.principal, assignees = excluded.assignees,
          expires_at = excluded.expires_at, entry = excluded.entry
      ),
      -- History (DESIGN §21): a point per layout-2 write; a rewrite drops those before it.
      pointed AS (
        INSERT INTO ${pointTable} (run_id, version, at, head, log_from)
        SELECT $1, written.version, clock_timestamp(), $4, written.log_from FROM written
        WHERE $4::text IS NOT NULL AND ($13::integer IS NULL OR $13::integer > 0)
      ),
      unpointed AS (
        DELETE FROM ${pointTable} p USING written
        WHERE p.run_id = $1 AND p.version < written.version
          AND ($11 OR p.version <= written.version - $13::integer)
      )
      -- Every parameter is referenced with its type, whichever branch the write took.
      SELECT version, ${CLOCK_MS} AS now, queued, $2::integer AS expected, $6::text AS writer,
        $18::text[] AS dequeued FROM written`,
      [
        runId,
        opts.expectedVersion,
        whole,
        head,
        expiresAt,
        owner,
        keptOwner,
        ms,
        chunk[0],
        chunk[1],
        rewrite,
        JSON.stringify(opts.pending ?? []),
        keep,
        added,
        windowAt,
        more.map((piece) => piece.text),
        more.map((piece) => piece.at),
        opts.dequeue ?? [],
      ],
    );
    if (!rows[0]) throw await refusal(runId, opts.expectedVersion, !rewrite);
    return { version: rows[0].version, now: rows[0].now, ...queueOf(rows[0].queued) };
  }

  return {
    async migrate() {
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
          run_id text PRIMARY KEY,
          version integer NOT NULL,
          snapshot text,
          expires_at timestamptz,
          updated_at timestamptz NOT NULL DEFAULT now(),
          lease_owner text,
          lease_until timestamptz,
          head text,
          log_from integer,
          lease_stop text
        )`,
      );
      await pool.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_stop text`);
      await pool.query(
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_owner text,
          ADD COLUMN IF NOT EXISTS lease_until timestamptz,
          ADD COLUMN IF NOT EXISTS head text,
          ADD COLUMN IF NOT EXISTS log_from integer,
          ADD COLUMN IF NOT EXISTS log_length bigint,
          ADD COLUMN IF NOT EXISTS log_window bigint,
          ALTER COLUMN snapshot DROP NOT NULL`,
      );
      // Late input (DESIGN §30): the run's queued messages.
      await pool.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS queued jsonb`);
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${logTable} (
          run_id text NOT NULL,
          version integer NOT NULL,
          messages text NOT NULL,
          resolved text NOT NULL,
          PRIMARY KEY (run_id, version)
        )`,
      );
      await pool.query(`ALTER TABLE ${logTable} ADD COLUMN IF NOT EXISTS log_at bigint`);
      // A long text is kept as several rows of one write (DESIGN §22): the key takes their place.
      // A table of an earlier release has its key rebuilt once, checked again under the lock so two
      // deploys migrating at once do it once.
      await pool.query(`ALTER TABLE ${logTable} ADD COLUMN IF NOT EXISTS part integer NOT NULL DEFAULT 0`);
      await pool.query(
        `DO $$
         DECLARE old_key text;
         BEGIN
           SELECT conname INTO old_key FROM pg_constraint
           WHERE conrelid = '${logTable}'::regclass AND contype = 'p' AND cardinality(conkey) = 2;
           IF old_key IS NOT NULL THEN
             LOCK TABLE ${logTable} IN ACCESS EXCLUSIVE MODE;
             SELECT conname INTO old_key FROM pg_constraint
             WHERE conrelid = '${logTable}'::regclass AND contype = 'p' AND cardinality(conkey) = 2;
             IF old_key IS NOT NULL THEN
               EXECUTE format('ALTER TABLE ${logTable} DROP CONSTRAINT %I, ADD PRIMARY KEY (run_id, version, part)', old_key);
             END IF;
           END IF;
         END $$`,
      );
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${pointTable} (
          run_id text NOT NULL,
          version integer NOT NULL,
          at timestamptz NOT NULL,
          head text NOT NULL,
          log_from integer NOT NULL,
          PRIMARY KEY (run_id, version)
        )`,
      );
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (expires_at) WHERE expires_at IS NOT NULL`,
      );
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${pendingTable} (
          run_id text NOT NULL,
          id text NOT NULL,
          asked_ms bigint NOT NULL,
          kind text NOT NULL,
          principal text,
          assignees text[],
          expires_at timestamptz,
          entry jsonb NOT NULL,
          PRIMARY KEY (run_id, id)
        )`,
      );
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ${indexNameOf(bare, '_pending_order_idx')} ON ${pendingTable} (asked_ms, run_id, id)`,
      );
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ${indexNameOf(bare, '_pending_principal_idx')} ON ${pendingTable} (principal, asked_ms, run_id, id)`,
      );
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ${indexNameOf(bare, '_pending_assignees_idx')} ON ${pendingTable} USING gin (assignees)`,
      );
      // A kind's first page in page order, without reading and sorting every ask of that kind.
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ${indexNameOf(bare, '_pending_kind_idx')} ON ${pendingTable} (kind, asked_ms, run_id, id)`,
      );
      // Compressing the large text columns dominates each write; lz4 (PostgreSQL 14+, when built
      // with it) halves a 1000-message write against the default pglz. Older servers keep pglz.
      for (const [name, column] of [
        [table, 'snapshot'],
        [logTable, 'messages'],
        [logTable, 'resolved'],
      ]) {
        await pool
          .query(`ALTER TABLE ${name} ALTER COLUMN ${column} SET COMPRESSION lz4`)
          .catch(() => undefined);
      }
    },

    async get(runId): Promise<StoredSnapshot | null> {
      const row = await read(runId, 'postgresStore.get');
      if (row === null || 'snapshot' in row) return row;
      const now = row.now !== undefined ? { now: row.now } : {};
      const queued = queueOf(row.queued);
      return { snapshot: assembleSnapshot(row), version: row.version, lease: row.lease, ...now, ...queued };
    },

    getParts: (runId, options) => read(runId, 'postgresStore.getParts', options?.transcript === 'window'),

    async getHead(runId) {
      // octet_length reads a stored text's size from its header: no log is decompressed or sent.
      const [row] = await query<ReadRow & { messages_length: number | null }>(
        'postgresStore.getHead',
        `SELECT r.version, r.snapshot, r.head, r.lease_owner, r.lease_until > clock_timestamp() AS live,
           ${CLOCK_MS} AS now,
           CASE WHEN r.head IS NULL THEN NULL ELSE (SELECT coalesce(sum(octet_length(l.messages) + 1)
             FILTER (WHERE octet_length(l.messages) > 0), 0)::float8 FROM ${logTable} l
             WHERE l.run_id = r.run_id AND l.version >= r.log_from) END AS messages_length
         FROM ${table} r WHERE r.run_id = $1`,
        [runId],
      );
      if (!row) return null;
      const lease = row.lease_owner === null ? null : { owner: row.lease_owner, live: row.live };
      const stored = { version: row.version, lease, now: row.now };
      if (row.head === null) return { snapshot: row.snapshot ?? '', ...stored };
      return { head: row.head, messagesLength: Math.max(0, (row.messages_length ?? 0) - 1), ...stored };
    },

    put: (runId, snapshot, opts) => write(runId, 'postgresStore.put', { snapshot }, opts),

    putParts: (runId, parts, opts) =>
      write(
        runId,
        'postgresStore.putParts',
        {
          head: parts.head,
          messages: parts.messages,
          cuts: parts.cuts,
          resolved: parts.resolved,
          rewrite: parts.mode === 'rewrite',
          windowAt: parts.windowAt ?? 0,
        },
        opts,
      ),

    async listPoints(runId) {
      const rows = await query<{ version: number; at: Date; head: string }>(
        'postgresStore.listPoints',
        `SELECT version, at, head FROM ${pointTable} WHERE run_id = $1 ORDER BY version`,
        [runId],
      );
      return rows.map((row) => ({
        version: row.version,
        at: new Date(row.at).toISOString(),
        head: row.head,
      }));
    },

    async getAt(runId, version) {
      if (!Number.isSafeInteger(version)) return null;
      const joined = (column: string) =>
        `(SELECT coalesce(string_agg(l.${column}, ',' ORDER BY l.version, l.part) FILTER (WHERE l.${column} <> ''), '')
          FROM ${logTable} l WHERE l.run_id = p.run_id AND l.version >= p.log_from AND l.version <= p.version)
          AS ${column}`;
      const [row] = await query<{ head: string; messages: string; resolved: string }>(
        'postgresStore.getAt',
        `SELECT p.head, ${joined('messages')}, ${joined('resolved')}
         FROM ${pointTable} p WHERE p.run_id = $1 AND p.version = $2`,
        [runId, version],
      );
      return row ? { head: row.head, messages: row.messages, resolved: row.resolved } : null;
    },

    async renew(runId, opts) {
      checkLeaseMs(opts.ms, 'postgresStore.renew');
      const rows = await query<{
        version: number;
        lease_stop: string | null;
        queued: QueuedMessage[] | null;
      }>(
        'postgresStore.renew',
        `UPDATE ${table} SET lease_until = ${leaseUntil('4')}
         WHERE run_id = $1 AND version = $2 AND lease_owner = $3
         RETURNING version, lease_stop, queued`,
        [runId, opts.version, opts.owner, opts.ms],
      );
      if (!rows[0]) throw await refusal(runId, opts.version);
      return { stop: stopMarkOf(rows[0].lease_stop), ...queueOf(rows[0].queued) };
    },

    async queueMessage(runId, entry) {
      // One UPDATE: the row lock orders it with every write, and an id already queued adds nothing.
      const rows = await query<{ live: boolean }>(
        'postgresStore.queueMessage',
        `UPDATE ${table} SET queued = CASE
           WHEN queued @> jsonb_build_array(jsonb_build_object('id', $2::text)) THEN queued
           ELSE coalesce(queued, '[]'::jsonb) || jsonb_build_array(jsonb_build_object('id', $2::text, 'messages', $3::text))
         END
         WHERE run_id = $1
         RETURNING coalesce(lease_owner IS NOT NULL AND lease_until > clock_timestamp(), false) AS live`,
        [runId, entry.id, entry.messages],
      );
      return rows[0] ? { live: rows[0].live } : null;
    },

    async requestStop(runId, opts) {
      const rows = await query<{ version: number }>(
        'postgresStore.requestStop',
        `UPDATE ${table} SET lease_stop = coalesce(lease_stop, $2)
         WHERE run_id = $1 AND lease_owner IS NOT NULL AND lease_until > clock_timestamp()
         RETURNING version`,
        [runId, opts.reason ?? ''],
      );
      return rows.length > 0;
    },

    async delete(runId) {
      await query(
        'postgresStore.delete',
        `WITH logs AS (DELETE FROM ${logTable} WHERE run_id = $1),
           pending AS (DELETE FROM ${pendingTable} WHERE run_id = $1),
           points AS (DELETE FROM ${pointTable} WHERE run_id = $1)
         DELETE FROM ${table} WHERE run_id = $1`,
        [runId],
      );
    },

    async listPending(filter, limit, cursor) {
      const values: unknown[] = [];
      const param = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      const where: string[] = [];
      if (cursor !== null) {
        const [ms, runId, id] = cursor.split('\n');
        where.push(`(asked_ms, run_id, id) > (${param(Number(ms))}::bigint, ${param(runId)}, ${param(id)})`);
      }
      if (filter.assignee !== undefined) where.push(`assignees @> ARRAY[${param(filter.assignee)}::text]`);
      if (filter.principal === null) where.push('principal IS NULL');
      else if (filter.principal !== undefined) where.push(`principal = ${param(filter.principal)}`);
      if (filter.visibleTo !== undefined) {
        const who = param(filter.visibleTo);
        where.push(`(principal = ${who} OR assignees @> ARRAY[${who}::text])`);
      }
      if (filter.kind !== undefined) where.push(`kind = ${param(filter.kind)}`);
      if (filter.expiringBefore !== undefined)
        where.push(`expires_at <= ${param(filter.expiringBefore)}::timestamptz`);
      const rows = await query<{ run_id: string; entry: PendingItem }>(
        'postgresStore.listPending',
        `SELECT run_id, entry FROM ${pendingTable}
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY asked_ms, run_id, id LIMIT ${param(limit + 1)}`,
        values,
      );
      const items = rows.slice(0, limit).map(({ run_id, entry }) => ({ ...entry, runId: run_id }));
      return { items, cursor: rows.length > limit ? pendingKey(items.at(-1)!) : null };
    },

    async listExpired(before, limit) {
      const rows = await query<{ run_id: string }>(
        'postgresStore.listExpired',
        // LIMIT NULL is no limit.
        // 'now' is the database's clock, the one its leases are judged by.
        `SELECT run_id FROM ${table} WHERE expires_at <= coalesce($1::timestamptz, clock_timestamp())
         ORDER BY expires_at, run_id LIMIT $2`,
        [
          before === 'now' ? null : before.toISOString(),
          limit === undefined || limit === Number.POSITIVE_INFINITY ? null : limit,
        ],
      );
      return rows.map((row) => row.run_id);
    },
  };
}
