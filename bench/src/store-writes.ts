/**
 * Bytes per resume (DESIGN §17, issue 19): what one `sessions.answer` writes to and reads from each
 * store, and the worker's CPU for it, at 10, 1,000 and 10,000 prior messages. Stores keep runs in
 * row layout 2 (a head and append-only logs), so the writes should stay within 2 KiB of the new
 * messages whatever the history; reads stay O(history) and are reported apart. Two reference rows
 * on memoryStore: the same store written whole (layout 1, as before issue 19) and a signed agent
 * (its writes hash the history for the signature).
 */
import { type ChatMessage, createSessions, memoryStore, type SnapshotStore } from '@turnkit/core';
import { ANSWER, cycleAgent, expectCompleted, expectPaused, SECRET } from './cycle.js';
import { buildHistory } from './history.js';
import { summarize } from './report.js';
import { countingStore, type StoreTarget } from './stores.js';

/** History lengths of the rows. */
export const WRITE_LENGTHS = [10, 1000, 10_000] as const;
/** The goal: bytes written per resume ≤ this + the new messages. */
export const WRITE_SLACK_BYTES = 2048;
/** Timed resumes per row, after one untimed. */
const WRITE_ROUNDS = 5;

/** One row: a store (or a reference variant) at one history length. */
export interface WriteRow {
  store: string;
  history: number;
  writtenBytes: number;
  /** The JSON of the messages the resume added: what the goal allows beyond its slack. */
  newMessagesBytes: number;
  readBytes: number;
  /** Medians over the rounds: the worker's CPU (user + system) and the wall time of one resume. */
  cpuMs: number;
  wallMs: number;
  /** Whether this row is measured against the goal (the reference rows are not). */
  goal: boolean;
}

/** The same store without row layout 2: what every store wrote before issue 19. */
function whole(store: SnapshotStore): SnapshotStore {
  const { getParts: _getParts, putParts: _putParts, ...rest } = store;
  return rest;
}

async function measure(
  name: string,
  store: SnapshotStore,
  history: ChatMessage[],
  options: { secret?: string; goal: boolean },
): Promise<WriteRow> {
  const counted = countingStore(store);
  const agent = cycleAgent(history, options.secret ? { secret: options.secret } : {});
  const sessions = createSessions({ agent, store: counted.store });
  const cpu: number[] = [];
  const wall: number[] = [];
  let row: Omit<WriteRow, 'cpuMs' | 'wallMs'> | undefined;
  for (let round = 0; round <= WRITE_ROUNDS; round++) {
    const started = await sessions.start(history);
    expectPaused(started, `${name} sessions.start`);
    counted.reset();
    (globalThis as { gc?: () => void }).gc?.();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    // The result's snapshot is never read: a handler that does not send it does not build it.
    const done = await sessions.answer(started.runId, ANSWER);
    const elapsed = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    expectCompleted(done, `${name} sessions.answer`);
    if (round > 0) {
      cpu.push((used.user + used.system) / 1000);
      wall.push(elapsed);
    }
    row = {
      store: name,
      history: history.length,
      writtenBytes: counted.calls().bytesWritten,
      newMessagesBytes: Buffer.byteLength(JSON.stringify(done.messages.slice(started.messages.length))),
      readBytes: counted.bytesRead(),
      goal: options.goal,
    };
    await store.delete(started.runId);
  }
  return { ...row!, cpuMs: summarize(cpu).medianMs, wallMs: summarize(wall).medianMs };
}

/** Measures every reachable store (and the two memoryStore references) at {@link WRITE_LENGTHS}. */
export async function benchStoreWrites(targets: StoreTarget[]): Promise<WriteRow[]> {
  const histories = WRITE_LENGTHS.map((length) => buildHistory(length));
  const rows: WriteRow[] = [];
  for (const history of histories) {
    rows.push(await measure('memoryStore, layout 1', whole(memoryStore()), history, { goal: false }));
    rows.push(await measure('memoryStore, signed', memoryStore(), history, { secret: SECRET, goal: true }));
  }
  for (const target of targets) {
    if (!('store' in target)) continue;
    for (const history of histories)
      rows.push(await measure(target.name, target.store, history, { goal: true }));
  }
  return rows;
}
