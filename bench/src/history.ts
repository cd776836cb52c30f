/**
 * The conversation every row measures against: alternating user/assistant messages of ~200
 * characters (quotes and a newline now and then, as real chat text has), ending with the user's
 * latest message. Deterministic, so runs compare.
 */
import {
  type Agent,
  type ChatMessage,
  compaction,
  createSessions,
  defineAgent,
  type ModelRequest,
  memoryStore,
  type Sessions,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { type Goal, goal, ms, size, table } from './report.js';

const WORDS = (
  'vial rack freezer K562 HeLa passage thaw medium serum flask confluent aliquot label box tower ' +
  'position inventory cryo nitrogen level check log sample count viability media split seed plate ' +
  'incubator CO2 humidity order batch lot expiry protocol step minutes warm gently centrifuge pellet'
).split(' ');

const MESSAGE_CHARS = 200;

/** A small seeded PRNG (mulberry32): the same text on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(next: () => number, index: number): string {
  let out = index % 5 === 0 ? 'Note: "' : '';
  while (out.length < MESSAGE_CHARS) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    out += out.length === 0 ? word[0]!.toUpperCase() + word.slice(1) : ` ${word}`;
    if (next() < 0.08) out += next() < 0.5 ? '.' : ',';
  }
  out = out.slice(0, MESSAGE_CHARS - 2);
  return index % 5 === 0 ? `${out}"\n` : `${out}.`;
}

/** `length` prior messages, alternating user/assistant, the last one from the user. */
export function buildHistory(length: number): ChatMessage[] {
  const next = random(0x7a11c17);
  return Array.from({ length }, (_, index): ChatMessage => {
    const role = (length - index) % 2 === 1 ? 'user' : 'assistant';
    return { role, content: text(next, index) };
  });
}

/** Assistant messages in a history: where the zero-latency model's script starts. */
export function assistantTurns(history: ChatMessage[]): number {
  return history.filter((message) => message.role === 'assistant').length;
}

/** Prior messages of the long-run rows (DESIGN §22). */
export const LONG_RUN_LENGTHS = [1_000, 10_000, 100_000] as const;
/** The goal of one long-run resume's read (DESIGN §22). */
export const LONG_RUN_READ_BYTES = 256 * 1024;
/** The long-run agent's `maxTokens` (characters / 4): the window stays about 32 kB of text. */
const LONG_RUN_MAX_TOKENS = 8_000;
/** Resumes measured per row (the median CPU is reported). */
const LONG_RUN_RESUMES = 5;
const KiB = 1024;

/** A store to measure (as `openStores` of stores.ts opens them), or why it is skipped. */
export type LongRunTarget =
  | { name: string; store: SnapshotStore; close(): Promise<void> }
  | { name: string; skipped: string };

/** One row: one store resume of a compacted run with `history` prior messages. */
export interface LongRunRow {
  store: string;
  history: number;
  /** Bytes the resume's read returned (head, transcript tail, resolved records; UTF-8). */
  bytesRead: number;
  /** Bytes the resume's writes sent, and the bytes of the messages it added (JSON). */
  bytesWritten: number;
  newMessages: number;
  /** The worker's CPU (user + system) for one resume, median of the resumes measured. */
  cpuMs: number;
  /** How the run was seeded, in seconds (one write of the whole history, then one compaction). */
  seedSeconds: number;
}

/** A chat agent that answers every message; with `maxTokens`, a long run's history is compacted. */
export function longRunAgent(maxTokens?: number): Agent {
  const reply = (request: ModelRequest) => `Noted (${request.messages.length} messages in view).`;
  return defineAgent({
    name: 'long-run',
    instructions: 'You keep a lab log.',
    model: scriptedModel(Array.from({ length: 200_000 }, () => reply)),
    ...(maxTokens
      ? {
          history: compaction({
            maxTokens,
            keepRecent: 4,
            compact: (messages: ChatMessage[]) => `Summary of ${messages.length} earlier messages.`,
          }),
        }
      : {}),
  });
}

/** A store whose layout-2 reads and writes are sized (UTF-8 bytes), passing the read options on. */
function sizedStore(inner: SnapshotStore): {
  store: SnapshotStore;
  read: () => number;
  written: () => number;
  reset(): void;
} {
  let read = 0;
  let written = 0;
  const store: SnapshotStore = {
    get: (runId) => inner.get(runId),
    put(runId, snapshot, opts) {
      written += Buffer.byteLength(snapshot);
      return inner.put(runId, snapshot, opts);
    },
    renew: (runId, opts) => inner.renew(runId, opts),
    listExpired: (before, limit) => inner.listExpired(before, limit),
    delete: (runId) => inner.delete(runId),
    async getParts(runId, options) {
      const row = await inner.getParts!(runId, options);
      if (row && 'head' in row) {
        read +=
          Buffer.byteLength(row.head) + Buffer.byteLength(row.messages) + Buffer.byteLength(row.resolved);
      } else if (row) read += Buffer.byteLength(row.snapshot);
      return row;
    },
    putParts(runId, write, opts) {
      written +=
        Buffer.byteLength(write.head) + Buffer.byteLength(write.messages) + Buffer.byteLength(write.resolved);
      return inner.putParts!(runId, write, opts);
    },
  };
  return {
    store,
    read: () => read,
    written: () => written,
    reset() {
      read = 0;
      written = 0;
    },
  };
}

/** Messages of a seeded run that arrive in small writes (as a long run grows): the window's span. */
const SMALL_WRITES = 20;
const SMALL_WRITE_MESSAGES = 20;

/** The writes that build a run of `length` prior messages, replayed onto each store. */
export type SeedWrite = { runId: string } & (
  | {
      write: Parameters<NonNullable<SnapshotStore['putParts']>>[1];
      opts: Parameters<SnapshotStore['put']>[2];
    }
  | { snapshot: string; opts: Parameters<SnapshotStore['put']>[2] }
);

/**
 * The writes of a run of `length` prior messages, played once in memory by an agent without
 * `maxTokens`: one write of all but the last few hundred messages (a big batch), then
 * {@link SMALL_WRITES} turns of {@link SMALL_WRITE_MESSAGES} messages each, as a run that lived
 * through many turns has its latest messages in many small chunks.
 */
function seedWrites(length: number): Promise<SeedWrite[]> {
  return recordWrites(async (sessions) => {
    const history = buildHistory(length);
    const tail = SMALL_WRITES * SMALL_WRITE_MESSAGES;
    const { runId } = await sessions.start(history.slice(0, length - tail));
    for (let from = length - tail; from < length; from += SMALL_WRITE_MESSAGES) {
      await sessions.send(runId, history.slice(from, from + SMALL_WRITE_MESSAGES));
    }
  });
}

/** The store writes `play` makes through sessions of an agent without `maxTokens`, in memory, in order. */
export async function recordWrites(play: (sessions: Sessions) => Promise<void>): Promise<SeedWrite[]> {
  const inner = memoryStore();
  const writes: SeedWrite[] = [];
  const recording: SnapshotStore = {
    ...inner,
    put(runId, snapshot, opts) {
      writes.push({ runId, snapshot, opts });
      return inner.put(runId, snapshot, opts);
    },
    putParts(runId, write, opts) {
      writes.push({ runId, write, opts });
      return inner.putParts!(runId, write, opts);
    },
  };
  await play(createSessions({ agent: longRunAgent(), store: recording }));
  return writes;
}

/** Replays recorded writes onto `store`; returns the run id. */
async function replay(store: SnapshotStore, writes: SeedWrite[]): Promise<string> {
  for (const item of writes) {
    if ('write' in item) await store.putParts!(item.runId, item.write, item.opts);
    else await store.put(item.runId, item.snapshot, item.opts);
  }
  return writes[0]!.runId;
}

/**
 * Seeds a run of `length` prior messages in `store` (its recorded writes replayed), compacts it
 * with one turn of the long-run agent (which reads the history once), then measures resumes:
 * bytes read, bytes written, worker CPU.
 */
export async function measureLongRun(
  name: string,
  store: SnapshotStore,
  length: number,
  writes: SeedWrite[],
): Promise<LongRunRow> {
  const t0 = performance.now();
  const runId = await replay(store, writes);
  const seeded = { runId };
  const sessions = createSessions({ agent: longRunAgent(LONG_RUN_MAX_TOKENS), store });
  // The first turn with maxTokens compacts (reading the history once); the next ones read the window.
  await sessions.send(seeded.runId, 'Compact now: what did we log?');
  const seedSeconds = (performance.now() - t0) / 1000;
  const sized = sizedStore(store);
  const measured = createSessions({ agent: longRunAgent(LONG_RUN_MAX_TOKENS), store: sized.store });
  const cpu: number[] = [];
  let last = { read: 0, written: 0, added: 0 };
  for (let resume = 0; resume < LONG_RUN_RESUMES; resume++) {
    sized.reset();
    const before = process.cpuUsage();
    const result = await measured.send(seeded.runId, `Resume ${resume}: log one more vial of K562.`);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    if (result.status !== 'completed') throw new Error(`long run ${name}@${length}: ${result.status}`);
    const added = result.messages.slice(-2);
    last = { read: sized.read(), written: sized.written(), added: Buffer.byteLength(JSON.stringify(added)) };
  }
  await store.delete(seeded.runId);
  cpu.sort((a, b) => a - b);
  return {
    store: name,
    history: length,
    bytesRead: last.read,
    bytesWritten: last.written,
    newMessages: last.added,
    cpuMs: cpu[Math.floor(cpu.length / 2)]!,
    seedSeconds,
  };
}

/**
 * Long runs (DESIGN §22, issue 33): one store resume of a compacted run at 1 000 / 10 000 / 100 000
 * prior messages on every store, with `maxTokens` set. Prints the table and returns its goals:
 * bytes read ≤ 256 KiB, bytes written ≤ 2 KiB + the new messages, CPU flat as the history grows
 * (100 000 within 2× the 1 000 row, plus 2 ms).
 */
export async function benchLongRuns(
  openStores: () => Promise<LongRunTarget[]>,
): Promise<{ rows: LongRunRow[]; goals: Goal[] }> {
  const rows: LongRunRow[] = [];
  const skipped: string[] = [];
  const seeds = new Map<number, SeedWrite[]>();
  for (const length of LONG_RUN_LENGTHS) seeds.set(length, await seedWrites(length));
  for (const target of await openStores()) {
    if (!('store' in target)) {
      skipped.push(`${target.name}: skipped, ${target.skipped}`);
      continue;
    }
    try {
      for (const length of LONG_RUN_LENGTHS) {
        rows.push(await measureLongRun(target.name, target.store, length, seeds.get(length)!));
      }
    } finally {
      await target.close();
    }
  }
  console.log(
    `\nLong runs (DESIGN §22): one store resume of a compacted run, maxTokens ${LONG_RUN_MAX_TOKENS}; goals: read ≤ 256 KiB, written ≤ 2 KiB + new messages, CPU flat`,
  );
  for (const line of skipped) console.log(`  ${line}`);
  console.log(
    table(
      ['store', 'history', 'bytes read', 'bytes written', 'new messages', 'worker CPU', 'seeded in'],
      rows.map((row) => [
        row.store,
        `${row.history} msgs`,
        size(row.bytesRead),
        size(row.bytesWritten),
        size(row.newMessages),
        ms(row.cpuMs),
        `${row.seedSeconds.toFixed(1)} s`,
      ]),
    ),
  );
  const goals: Goal[] = rows.flatMap((row) => [
    goal(`long run read, ${row.store} @${row.history}`, row.bytesRead, LONG_RUN_READ_BYTES, size),
    goal(`long run written, ${row.store} @${row.history}`, row.bytesWritten, 2 * KiB + row.newMessages, size),
  ]);
  for (const name of new Set(rows.map((row) => row.store))) {
    const first = rows.find((row) => row.store === name && row.history === LONG_RUN_LENGTHS[0]);
    const lastRow = rows.find((row) => row.store === name && row.history === LONG_RUN_LENGTHS.at(-1));
    if (first && lastRow) {
      goals.push(
        goal(`long run CPU flat, ${name} @${lastRow.history}`, lastRow.cpuMs, 2 * first.cpuMs + 2, ms),
      );
    }
  }
  return { rows, goals };
}
