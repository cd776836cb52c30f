/**
 * How sessions read and write a run in their store (DESIGN §17). With a store that has `getParts`
 * and `putParts`, a run is kept in row layout 2 — a small head and append-only logs — and each
 * write sends the head and the entries added since the last read or write; otherwise it is one
 * snapshot string per write (layout 1). Layout-1 rows are read either way, and a layout-2 store
 * rewrites them as layout 2 on their next write. Agents that encrypt stay in layout 1.
 */
import { SnapshotError } from '../errors.js';
import { decodedOf, encodeRun, loadRun, type Run, type RunAccess } from '../interpreter/index.js';
import { pendingInteractions } from '../machine/index.js';
import { encodeParts, openParts, type StoredLogs } from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';
import type { TurnOptions } from '../types.js';
import { pendingEntries } from './inbox.js';
import type { PutOptions, SnapshotStore, StoredLease } from './store.js';

/** A run as read from the store. */
export interface StoredRun {
  run: Run;
  version: number;
  lease: StoredLease | null;
  /** The stored snapshot string (for a layout-2 row, assembled: it was needed to load the run). */
  snapshot: string;
  /** What the stored logs hold, for the next write to append to (layout-2 stores only). */
  logs?: StoredLogs;
}

/** A write that succeeded. */
export interface WrittenRun {
  version: number;
  /** What the stored logs hold now (layout-2 writes only). */
  logs?: StoredLogs;
  /** The snapshot string as written, built on first call for a layout-2 write. */
  snapshot: () => string;
}

type PartsStore = SnapshotStore & Required<Pick<SnapshotStore, 'getParts' | 'putParts'>>;

/** Whether sessions can keep runs in row layout 2 in this store. */
function hasParts(store: SnapshotStore): store is PartsStore {
  return typeof store.getParts === 'function' && typeof store.putParts === 'function';
}

/** Reads and loads a run, or null when none is stored. */
export async function readRun(
  store: SnapshotStore,
  agent: AnyAgent,
  runId: string,
  options: TurnOptions,
  access: RunAccess = 'owner',
): Promise<StoredRun | null> {
  if (!hasParts(store)) {
    const row = await store.get(runId);
    if (!row) return null;
    return { run: loadRun(agent, row.snapshot, options, undefined, access), ...row };
  }
  const row = await store.getParts(runId);
  if (!row) return null;
  const { version, lease } = row;
  if (!('head' in row)) {
    // Layout 1: the next write rewrites it as layout 2, reusing the transcript's text.
    const run = loadRun(agent, row.snapshot, options, undefined, access);
    const logs: StoredLogs | undefined = run.transcript && {
      layout: 1,
      messages: run.transcript.messages,
      messagesText: run.transcript.text,
      resolved: run.state.context.resolved,
    };
    return { run, version, lease, snapshot: row.snapshot, ...(logs ? { logs } : {}) };
  }
  const opened = openParts(row);
  const run = loadRun(agent, opened.snapshot, options, undefined, access);
  const context = run.state.context;
  if (context.messages.length !== opened.messages || context.resolved.length !== opened.resolved) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `Run ${runId}: the stored logs hold ${context.messages.length} messages and ${context.resolved.length} resolved records, but its head counts ${opened.messages} and ${opened.resolved}. Restore the row as TurnKit wrote it, or delete the run.`,
    );
  }
  // Without a transcript text the snapshot was migrated (agent.migrate): the next write rewrites.
  const logs: StoredLogs | undefined = run.transcript && {
    layout: 2,
    messages: context.messages,
    messagesText: row.messages,
    resolved: context.resolved,
    resolvedText: row.resolved,
  };
  return { run, version, lease, snapshot: opened.snapshot, ...(logs ? { logs } : {}) };
}

/**
 * Writes the run: its head and new log entries (layout 2), or its whole snapshot (layout 1), and
 * with them its pending interactions for the inbox index (DESIGN §20), in the same store write.
 */
export async function writeRun(
  store: SnapshotStore,
  run: Run,
  logs: StoredLogs | undefined,
  given: PutOptions,
): Promise<WrittenRun> {
  const opts: PutOptions = { ...given, pending: pendingEntries(run) };
  if (hasParts(store)) {
    const encoded = encodeParts(decodedOf(run), run.agent.snapshot, logs);
    if (encoded) {
      const { version } = await store.putParts(run.runId, encoded.write, opts);
      return { version, logs: encoded.logs, snapshot: encoded.snapshot };
    }
  }
  const snapshot = encodeRun(run);
  const { version } = await store.put(run.runId, snapshot, opts);
  return { version, snapshot: () => snapshot };
}

/** When the run's earliest pending interaction expires: what a write at rest keeps for `listExpired`. */
export function earliestExpiry(run: Run): string | null {
  return (
    pendingInteractions(run.state.context)
      .map((interaction) => interaction.expiresAt)
      .filter((value): value is string => value !== null)
      .sort()[0] ?? null
  );
}
