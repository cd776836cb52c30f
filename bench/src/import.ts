/**
 * A long run that arrived in one write (DESIGN §22, issue 43): a conversation of 100 000 messages
 * imported by one `sessions.start`, compacted by its next turn, then resumed. The chunk of the
 * transcript log holding the window's start used to be the whole import, read again by every
 * resume; a long write is now kept as chunks of at most 64 Ki characters (`PartsWrite.cuts`). Per
 * store: the bytes one resume reads (goal ≤ 256 KiB) and writes, and the same run written without
 * its cuts — as every store kept it before — for comparison (no goal).
 */
import type { ChatMessage } from '@turnkit/core';
import {
  buildHistory,
  LONG_RUN_READ_BYTES,
  type LongRunRow,
  type LongRunTarget,
  measureLongRun,
  recordWrites,
  type SeedWrite,
} from './history.js';
import { type Goal, goal, ms, size, table } from './report.js';

/** Messages of the imported conversation (about 23 MB of JSON). */
const IMPORTED = 100_000;
const KiB = 1024;

/** The import's writes as a store got them before issue 43: the same texts, never cut. */
function withoutCuts(writes: SeedWrite[]): SeedWrite[] {
  return writes.map((item) => {
    if (!('write' in item)) return item;
    const { cuts: _cuts, ...write } = item.write;
    return { ...item, write };
  });
}

/** One row of the table: a store, how its import was written, and its resume. */
interface ImportRow extends LongRunRow {
  /** `cut` (this release) or `whole` (the import's text in one chunk, as before issue 43). */
  written: 'cut' | 'whole';
}

/**
 * Big imports: per store, a run started with {@link IMPORTED} messages in one call (its recorded
 * writes replayed, with and without cuts), compacted, then resumed. Prints the table and returns the
 * goals (read ≤ 256 KiB and written ≤ 2 KiB + the new messages, for the cut import).
 */
export async function benchImport(
  openStores: () => Promise<LongRunTarget[]>,
): Promise<{ rows: ImportRow[]; goals: Goal[] }> {
  const history: ChatMessage[] = buildHistory(IMPORTED);
  const cut = await recordWrites(async (sessions) => {
    await sessions.start(history);
  });
  const whole = withoutCuts(cut);
  const rows: ImportRow[] = [];
  const skipped: string[] = [];
  for (const target of await openStores()) {
    if (!('store' in target)) {
      skipped.push(`${target.name}: skipped, ${target.skipped}`);
      continue;
    }
    try {
      for (const [written, writes] of [
        ['cut', cut],
        ['whole', whole],
      ] as const) {
        rows.push({ ...(await measureLongRun(target.name, target.store, IMPORTED, writes)), written });
      }
    } finally {
      await target.close();
    }
  }
  console.log(
    `\nLong runs, one import (DESIGN §22, issue 43): a run started with ${IMPORTED} messages in one sessions.start, compacted, then one resume; goal: read ≤ 256 KiB ('whole': the import kept in one chunk, as before)`,
  );
  for (const line of skipped) console.log(`  ${line}`);
  console.log(
    table(
      ['store', 'import kept', 'bytes read', 'bytes written', 'new messages', 'worker CPU', 'seeded in'],
      rows.map((row) => [
        row.store,
        row.written === 'cut' ? 'in chunks' : 'whole (before)',
        size(row.bytesRead),
        size(row.bytesWritten),
        size(row.newMessages),
        ms(row.cpuMs),
        `${row.seedSeconds.toFixed(1)} s`,
      ]),
    ),
  );
  const goals = rows
    .filter((row) => row.written === 'cut')
    .flatMap((row) => [
      goal(`import resume read, ${row.store} @${row.history}`, row.bytesRead, LONG_RUN_READ_BYTES, size),
      goal(
        `import resume written, ${row.store} @${row.history}`,
        row.bytesWritten,
        2 * KiB + row.newMessages,
        size,
      ),
    ]);
  return { rows, goals };
}
