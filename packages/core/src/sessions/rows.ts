/**
 * How sessions read and write a run in their store (DESIGN §17). With a store that has `getParts`
 * and `putParts`, a run is kept in row layout 2 — a small head and append-only logs — and each
 * write sends the head and the entries added since the last read or write; otherwise it is one
 * snapshot string per write (layout 1). Layout-1 rows are read either way, and a layout-2 store
 * rewrites them as layout 2 on their next write. Agents that encrypt stay in layout 1.
 *
 * Each write records in the snapshot the row version it creates (`row`: the expected version + 1,
 * as every store counts), under the signature or the encryption. A signed run read back whose
 * `row` is below the stored version was restored from an older row by someone who could write the
 * store but not sign: it is refused with SNAPSHOT_TAMPERED, so an approved tool cannot run again.
 * A `row` above the stored version is a run copied into another store (the AG-UI mount's
 * client-held mode does so on every request, a migration may too): it loads, and its next write
 * records the new store's version. Rows written before this carry no `row` and still load.
 *
 * Time: a store that gives its clock with a read (`now`) makes it the run's clock for the call
 * (questions expire by it), unless the caller passed `TurnOptions.now`.
 */
import { SnapshotError, StateError } from '../errors.js';
import {
  activeHandoffIn,
  completedOutput,
  decodedOf,
  loadRun,
  type Run,
  type RunAccess,
  resultOf,
  rootOf,
  statusOf,
  toPending,
  withStoreClock,
} from '../interpreter/index.js';
import { type LoopContext, type LoopStateName, pendingInteractions } from '../machine/index.js';
import {
  type DecodedSnapshot,
  encodeParts,
  encodeSnapshot,
  fullTranscript,
  openParts,
  type StoredLogs,
} from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';
import type { ChatMessage, PendingInteraction, TurnOptions, TurnStatus } from '../types.js';
import type { RunHead } from './api.js';
import { pendingEntries } from './inbox.js';
import { afterWrite, dequeueOf, noteQueue } from './queued.js';
import { nextWake } from './schedule.js';
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
  /** The store's clock at the write (epoch ms), when the store gives it. */
  now?: number;
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
    const clocked = withStoreClock(options, row.now);
    const { snapshot, version, lease } = row;
    const run = checkRow(loadRun(agent, snapshot, clocked, undefined, access), version);
    noteQueue(run, row.queued);
    return { run, snapshot, version, lease };
  }
  // DESIGN §22: the store may return the transcript log from the window's chunk on (O(window)).
  const row = await store.getParts(runId, { transcript: 'window' });
  if (!row) return null;
  const { version, lease } = row;
  options = withStoreClock(options, row.now);
  if (!('head' in row)) {
    // Layout 1: the next write rewrites it as layout 2, reusing the transcript's text.
    const run = checkRow(loadRun(agent, row.snapshot, options, undefined, access), version);
    noteQueue(run, row.queued);
    const logs: StoredLogs | undefined = run.transcript && {
      layout: 1,
      messages: run.transcript.messages,
      messagesText: run.transcript.text,
      resolved: run.state.context.resolved,
    };
    return { run, version, lease, snapshot: row.snapshot, ...(logs ? { logs } : {}) };
  }
  const opened = openParts(row);
  const run = checkRow(loadRun(agent, opened.snapshot, options, undefined, access), version);
  noteQueue(run, row.queued);
  const context = run.state.context;
  // A compacted run (DESIGN §22): its messages are the window's summary, then the log from `from`.
  const window = context.window ?? { from: 0, summary: 0 };
  const at = opened.window ?? { from: 0, at: 0, base: 0 };
  const inWindow = opened.messages - (at.from - at.base);
  if (at.from !== window.from) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      `Run ${runId}: its stored head puts the window at message ${at.from} of the transcript, but its snapshot at ${window.from}. Restore the row as TurnKit wrote it, or delete the run.`,
    );
  }
  if (context.messages.length !== window.summary + inWindow || context.resolved.length !== opened.resolved) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `Run ${runId}: the stored logs hold ${context.messages.length} messages and ${context.resolved.length} resolved records, but its head counts ${window.summary + inWindow} and ${opened.resolved}. Restore the row as TurnKit wrote it, or delete the run.`,
    );
  }
  // Without a transcript text the snapshot was migrated (agent.migrate): the next write rewrites.
  const logs: StoredLogs | undefined = run.transcript && {
    layout: 2,
    messages: context.messages,
    messagesText: opened.windowText,
    resolved: context.resolved,
    resolvedText: row.resolved,
    log: {
      count: opened.messages,
      base: at.base,
      from: at.from,
      at: at.at,
      // The whole log's length: where the tail read starts, plus the tail.
      length: (row.messagesAt ?? 0) + row.messages.length,
      summary: window.summary,
      ...(opened.window?.chain ? { chain: opened.window.chain } : {}),
    },
  };
  return { run, version, lease, snapshot: opened.snapshot, ...(logs ? { logs } : {}) };
}

/**
 * A signed run whose snapshot records an older row version than the stored one was restored from an
 * older row: SNAPSHOT_TAMPERED. (Without a secret anyone can write any snapshot, so nothing is proved.)
 */
function checkRow(run: Run, version: number): Run {
  if (rootOf(run).snapshot?.secret && run.row !== undefined && run.row < version) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      `Run ${run.runId}: the stored snapshot was written as row version ${run.row}, but the store holds it as version ${version}, so an older row was put back in place of the latest. Restore the run's latest row, or delete the run.`,
    );
  }
  return run;
}

/** The run as a snapshot recording the row version its write creates (right after `seq`). */
function stamped(run: Run, opts: PutOptions): DecodedSnapshot {
  const { format, version, agent, agentVersion, runId, turn, seq, ...rest } = decodedOf(run);
  const row = (opts.expectedVersion ?? 0) + 1;
  return { format, version, agent, agentVersion, runId, turn, seq, row, ...rest };
}

/** Whether a machine state is a claim's (a worker is, or was, playing the turn). */
const CLAIMED: ReadonlySet<LoopStateName> = new Set(['callingModel', 'executingTools']);

/**
 * A run's state without its transcript (DESIGN §17, for `GET /runs/:id/events`): from a layout-2
 * row's head alone when the store can read it (`getHead`), else from the whole run. The head is
 * read as stored: its signature covers the logs too, so it cannot be checked without them; nothing
 * runs from it (answers and turns read and verify the whole run), it only describes the run.
 */
export async function readHead(
  store: SnapshotStore,
  agent: AnyAgent,
  runId: string,
  options: TurnOptions,
): Promise<RunHead<unknown> | null> {
  const row = store.getHead ? await store.getHead(runId) : null;
  if (!row || !('head' in row)) {
    const stored = await readRun(store, agent, runId, options);
    if (!stored) return null;
    const { run, version } = stored;
    const result = resultOf(run, stored.snapshot, CLAIMED.has(run.state.value) ? 'running' : undefined);
    const messagesLength = JSON.stringify(run.state.context.messages).length - 2;
    return headOf(result, { version, seq: run.seq, messageCount: result.messages.length, messagesLength });
  }
  const opened = openParts({ head: row.head, messages: '', resolved: '' });
  let envelope: {
    runId?: unknown;
    seq?: unknown;
    principal?: unknown;
    activeAgent?: { name: string; from: string };
    state?: { value?: unknown; context?: unknown };
  };
  try {
    envelope = JSON.parse(opened.snapshot);
  } catch (cause) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `Run ${runId}: its stored head is not JSON. Restore the row as TurnKit wrote it, or delete the run.`,
      { cause },
    );
  }
  const value = envelope.state?.value as LoopStateName;
  const context = envelope.state?.context as LoopContext | undefined;
  if (envelope.runId !== runId || typeof envelope.seq !== 'number' || typeof value !== 'string' || !context) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `Run ${runId}: its stored head is not a TurnKit run's. Restore the row as TurnKit wrote it, or delete the run.`,
    );
  }
  if (
    options.principal !== undefined &&
    envelope.principal !== undefined &&
    envelope.principal !== options.principal
  ) {
    throw new StateError(
      'RUN_NOT_FOUND',
      `No run with id ${JSON.stringify(runId)} is visible to this caller: start one, or use the caller that started it.`,
    );
  }
  const status: TurnStatus | 'running' = CLAIMED.has(value) ? 'running' : statusOf(value);
  const pending: PendingInteraction[] =
    status === 'needs_input' ? pendingInteractions(context).map(toPending) : [];
  // A completed run's answer is parsed with the output schema of the agent that gave it (DESIGN §27).
  const played = envelope.activeAgent ? activeHandoffIn(agent, envelope.activeAgent).agent : agent;
  const shell = { runId, agent: played, state: { value, context } } as unknown as Run;
  return {
    runId,
    status: status as TurnStatus,
    needsInput: status === 'needs_input',
    pending,
    output: status === 'completed' ? completedOutput(shell) : null,
    error: status === 'failed' ? context.error : null,
    version: row.version,
    seq: envelope.seq,
    messageCount: opened.messages,
    messagesLength: row.messagesLength,
  };
}

/** The head of a whole result. */
function headOf(
  result: {
    runId: string;
    status: TurnStatus;
    needsInput: boolean;
    pending: PendingInteraction[];
    output: unknown;
    error: RunHead<unknown>['error'];
  },
  rest: Pick<RunHead<unknown>, 'version' | 'seq' | 'messageCount' | 'messagesLength'>,
): RunHead<unknown> {
  const { runId, status, needsInput, pending, output, error } = result;
  return { runId, status, needsInput, pending, output, error, ...rest };
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
  // Queued messages this run's transcript now holds leave the queue with this write (DESIGN §30).
  const dequeue = dequeueOf(run);
  const opts: PutOptions = { ...given, pending: pendingEntries(run), ...(dequeue ? { dequeue } : {}) };
  const decoded = stamped(run, opts);
  if (hasParts(store)) {
    const encoded = encodeParts(decoded, rootOf(run).snapshot, logs);
    if (encoded) {
      const { version, now, queued } = await store.putParts(run.runId, encoded.write, opts);
      afterWrite(run, dequeue, queued);
      return {
        version,
        ...(now !== undefined ? { now } : {}),
        logs: encoded.logs,
        snapshot: encoded.snapshot,
      };
    }
  }
  const snapshot = encodeSnapshot(decoded, rootOf(run).snapshot, run.transcript);
  const { version, now, queued } = await store.put(run.runId, snapshot, opts);
  afterWrite(run, dequeue, queued);
  return { version, ...(now !== undefined ? { now } : {}), snapshot: () => snapshot };
}

/**
 * The whole transcript of a loaded run as its store keeps it (DESIGN §22, `transcript: 'full'`): a
 * layout-2 row's transcript log; otherwise only the run's messages after its window's summary.
 */
export async function readTranscript(store: SnapshotStore, run: Run): Promise<ChatMessage[]> {
  const window = run.state.context.window;
  const row = hasParts(store) ? await store.getParts(run.runId) : null;
  const secret = rootOf(run).snapshot?.secret;
  if (row && 'head' in row) {
    // A signed run's log before the window is checked against the head's MAC chain.
    return fullTranscript(row, secret ? { secret, from: window?.from ?? 0 } : undefined).messages;
  }
  return run.state.context.messages.slice(window?.summary ?? 0);
}

/**
 * When the sweeper should next look at the run: its earliest pending expiry, or an earlier reminder
 * or escalation step due (DESIGN §30). What a write at rest keeps for `listExpired`.
 */
export function earliestExpiry(run: Run): string | null {
  return nextWake(pendingInteractions(run.state.context));
}
