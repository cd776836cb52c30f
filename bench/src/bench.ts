/**
 * `npm run bench`: TurnKit's overhead per turn (DESIGN §10, issue 4), in one process and one run.
 * Prints medians, ratios to the JSON floor and the goals (PASS/WARN), and writes
 * bench/results.json. Exits non-zero only when a run is broken (did not pause or resume).
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { type ChatMessage, memoryStore } from '@turnkit/core';
import { benchAiSdk, printAiSdk } from './ai-sdk.js';
import { cycleAgent, runCycle, SECRET, sampleContext } from './cycle.js';
import { benchLongRuns, buildHistory } from './history.js';
import { benchHooks } from './hooks.js';
import { benchImport } from './import.js';
import { benchInbox } from './inbox.js';
import { benchOtel } from './otel.js';
import { benchReplay } from './replay.js';
import {
  type Goal,
  goal,
  goalsTable,
  ms,
  newBench,
  pairedRatio,
  runRounds,
  size,
  type Timing,
  table,
  times,
} from './report.js';
import { benchRuntimes, reportRuntimes } from './runtimes.js';
import { measureStartup } from './startup.js';
import { benchStoreCycle, printStoreCycle } from './store-cycle.js';
import { benchStoreWrites, WRITE_SLACK_BYTES, type WriteRow } from './store-writes.js';
import { benchStores, openStores, type StoreRow } from './stores.js';

const LENGTHS = [10, 100, 1000] as const;
/** Short rounds: see `runRounds`. */
const ROUNDS = 6;
/** "Snapshot ≤ 1.10× the raw messages JSON (+ a small constant)": the constant. */
const SNAPSHOT_SLACK_BYTES = 2048;
const RESULTS = new URL('../results.json', import.meta.url);

interface Sizes {
  rawBytes: number;
  pausedBytes: number;
  signedBytes: number;
  finalBytes: number;
}

/** One verified cycle per length, unsigned and signed, for the sizes (and as a smoke test). */
async function measureSizes(history: ChatMessage[]): Promise<Sizes> {
  const plain = await runCycle(cycleAgent(history), history, memoryStore());
  const signed = await runCycle(cycleAgent(history, { secret: SECRET }), history, memoryStore());
  return {
    rawBytes: Buffer.byteLength(JSON.stringify(history)),
    pausedBytes: Buffer.byteLength(plain.paused.snapshot),
    signedBytes: Buffer.byteLength(signed.paused.snapshot),
    finalBytes: Buffer.byteLength(plain.done.snapshot),
  };
}

async function benchCycles(histories: Map<number, ChatMessage[]>): Promise<Map<string, Timing>> {
  const bench = newBench({ time: 300, warmupTime: 60, iterations: 20 });
  let sink = 0;
  for (const [length, history] of histories) {
    const plain = cycleAgent(history);
    const signed = cycleAgent(history, { secret: SECRET });
    const store = memoryStore();
    bench.add(`floor ${length}`, () => {
      sink += (JSON.parse(JSON.stringify(history)) as unknown[]).length;
    });
    bench.add(`cycle ${length}`, async () => void (await runCycle(plain, history, store)));
    bench.add(`signed ${length}`, async () => void (await runCycle(signed, history, store)));
    bench.add(`context ${length}`, async () => void (await runCycle(plain, history, store, sampleContext())));
  }
  const timings = await runRounds(bench, ROUNDS);
  if (sink === 0) throw new Error('the JSON floor did not run');
  return timings;
}

async function main(): Promise<void> {
  const started = performance.now();
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  console.log(
    `TurnKit bench — Node ${process.version}, ${process.platform} ${process.arch}, ${cpus().length} × ${cpu}, load ${load()}\n`,
  );
  const histories = new Map(LENGTHS.map((length) => [length, buildHistory(length)] as const));
  const sizes = new Map<number, Sizes>();
  for (const [length, history] of histories) sizes.set(length, await measureSizes(history));
  const phaseSeconds: Record<string, number> = {};
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const value = await work();
    phaseSeconds[name] = Math.round((performance.now() - t0) / 100) / 10;
    return value;
  };
  const cycles = await phase('cycles', () => benchCycles(histories));
  const otel = await phase('otel', () => benchOtel(histories, ROUNDS));
  const hooks = await phase('hooks', () => benchHooks(histories, ROUNDS));
  const { stores, writes } = await phase('stores', () => measureStores(histories));
  const storeCycle = await phase('storeCycle', () => benchStoreCycle(histories));
  const aiSdk = await phase('aiSdk', () => benchAiSdk(histories, ROUNDS));
  const startup = await phase('startup', measureStartup);
  const runtimes = await phase('runtimes', benchRuntimes);

  const cycleRows = LENGTHS.map((length) => {
    const [floor, cycle, signed, context] = ['floor', 'cycle', 'signed', 'context'].map(
      (kind) => cycles.get(`${kind} ${length}`)!,
    ) as [Timing, Timing, Timing, Timing];
    const ratio = (timing: Timing) => pairedRatio(timing, floor);
    return {
      history: length,
      floor,
      cycle,
      signed,
      context,
      ratio: ratio(cycle),
      signedRatio: ratio(signed),
      contextRatio: ratio(context),
      otel: otel.get(length)!,
      hooks: hooks.get(length)!,
    };
  });
  console.log(
    'Cycle: runTurn pauses on a question → memoryStore → answerQuestion → completed (medians, lowest of the rounds; zero-latency model)',
  );
  console.log(
    table(
      [
        'history',
        'JSON floor',
        'cycle',
        '× floor',
        'signed (HMAC)',
        '× floor',
        'with context',
        '× floor',
        'otel, no-op tracer',
        '× cycle',
        'otel, SDK sampled out',
        '× cycle',
        '3 pass-through hooks',
        '× cycle',
      ],
      cycleRows.map((row) => [
        `${row.history} msgs`,
        ms(row.floor.medianMs),
        ms(row.cycle.medianMs),
        times(row.ratio),
        ms(row.signed.medianMs),
        times(row.signedRatio),
        ms(row.context.medianMs),
        times(row.contextRatio),
        ms(row.otel.noop.medianMs),
        times(row.otel.noopRatio),
        ms(row.otel.sampledOut.medianMs),
        times(row.otel.sampledOutRatio),
        ms(row.hooks.hooks.medianMs),
        times(row.hooks.ratio),
      ]),
    ),
  );

  const sizeRows = LENGTHS.map((length) => {
    const item = sizes.get(length)!;
    return {
      history: length,
      ...item,
      ratio: item.pausedBytes / item.rawBytes,
      overheadBytes: item.pausedBytes - item.rawBytes,
    };
  });
  console.log('\nSnapshot size at the pause vs JSON.stringify(messages)');
  console.log(
    table(
      ['history', 'raw messages', 'snapshot', '× raw', 'overhead', 'signed', 'final (completed)'],
      sizeRows.map((row) => [
        `${row.history} msgs`,
        size(row.rawBytes),
        size(row.pausedBytes),
        times(row.ratio),
        `+${size(row.overheadBytes)}`,
        size(row.signedBytes),
        size(row.finalBytes),
      ]),
    ),
  );

  const { coldImportMs, bundle } = startup;
  const core = coldImportMs['@turnkit/core']!;
  const parts = ['zod', 'xstate', 'superjson']
    .map((name) => `${name} ${ms(coldImportMs[name]!.median)}`)
    .join(', ');
  const packages = Object.entries(bundle.byPackage)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${size(bytes)}`)
    .join(', ');
  console.log('\nStartup (fresh Node processes)');
  console.log(
    `  cold import('@turnkit/core'): ${ms(core.median)} median of ${core.samples.length} (min ${ms(Math.min(...core.samples))}, max ${ms(Math.max(...core.samples))})`,
  );
  console.log(
    `    with zod already loaded (any app that defines tools has): ${ms(coldImportMs['@turnkit/core after zod']!.median)}`,
  );
  console.log(`    each dependency alone: ${parts}`);
  console.log(
    `  core bundle (esbuild, minified, zod external): ${(bundle.minBytes / 1000).toFixed(1)} kB min, ${(bundle.gzipBytes / 1000).toFixed(1)} kB min+gzip`,
  );
  console.log(`    minified by package: ${packages}`);
  const runtimeGoals = reportRuntimes(runtimes);

  console.log(
    '\nStores: one resume (sessions.answer) through createSessions; calls counted and timed on the store',
  );
  console.log(
    table(
      ['store', 'history', 'resume', 'added vs memory', 'get', 'put', 'get each', 'put each', 'written'],
      stores
        .filter((row) => !row.skipped)
        .map((row) => [
          row.store,
          `${row.history} msgs`,
          ms(row.resume!.medianMs),
          row.store === 'memoryStore' ? '—' : `+${ms(row.addedMs!)}`,
          String(row.calls!.get),
          String(row.calls!.put),
          ms(row.calls!.getMedianMs),
          ms(row.calls!.putMedianMs),
          size(row.calls!.bytesWritten),
        ]),
    ),
  );
  for (const row of stores) if (row.skipped) console.log(`  ${row.store}: skipped, ${row.skipped}`);
  printWrites(writes);
  const storeCycleGoals = printStoreCycle(storeCycle);
  const aiSdkGoals = printAiSdk(aiSdk);

  const row = (length: number) => cycleRows.find((item) => item.history === length)!;
  const goals: Goal[] = [
    goal('cycle @10 vs JSON floor (issue 18)', row(10).ratio, 10, times),
    goal('cycle @1000 vs JSON floor (issues 18, 49)', row(1000).ratio, 1.3, times),
    goal('signed cycle @1000 vs JSON floor', row(1000).signedRatio, 3.5, times),
    goal('linear: cycle @1000 vs cycle @100', pairedRatio(row(1000).cycle, row(100).cycle), 12, times),
    goal('otelTelemetry, no-op tracer @10 vs cycle', row(10).otel.noopRatio, 1.05, times),
    goal('otelTelemetry, no-op tracer @1000 vs cycle', row(1000).otel.noopRatio, 1.05, times),
    goal('3 pass-through hooks @10 vs cycle (issue 44)', row(10).hooks.ratio, 1.05, times),
    ...sizeRows.map((item) => ({
      ...goal(
        `snapshot @${item.history} vs 1.10× raw + ${size(SNAPSHOT_SLACK_BYTES)}`,
        item.pausedBytes,
        item.rawBytes * 1.1 + SNAPSHOT_SLACK_BYTES,
        size,
      ),
      measured: `${size(item.pausedBytes)} (${times(item.ratio)})`,
    })),
    goal('cold import', core.median, 150, ms),
    goal('cold import after zod (issue 18)', coldImportMs['@turnkit/core after zod']!.median, 40, ms),
    goal('core min+gzip without zod', bundle.gzipBytes / 1000, 40, (value) => `${value.toFixed(1)} kB`),
    ...stores
      .filter((item) => !item.skipped)
      .map((item): Goal => {
        const calls = item.calls!;
        return {
          goal: `round trips per resume, ${item.store} @${item.history}`,
          measured: `${calls.get} get + ${calls.put} put`,
          target: '1 get + 2 put',
          verdict: calls.get === 1 && calls.put === 2 && calls.delete === 0 ? 'PASS' : 'WARN',
        };
      }),
    ...writeGoals(writes),
    ...storeCycleGoals,
    ...aiSdkGoals,
    ...runtimeGoals,
  ];
  console.log('\nGoals (issues 4, 17, 18, 19, 35, 49; ratios measured in this run)');
  console.log(goalsTable(goals));
  goals.push(...(await phase('inbox', benchInbox)));
  goals.push(...(await phase('replay', benchReplay)));
  goals.push(...(await phase('longRuns', () => benchLongRuns(openStores))).goals);
  goals.push(...(await phase('import', () => benchImport(openStores))).goals);

  const durationSeconds = Math.round((performance.now() - started) / 100) / 10;
  const environment = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu,
    cores: cpus().length,
    loadAverage: loadavg(),
  };
  const results = {
    date: new Date().toISOString(),
    environment,
    durationSeconds,
    phaseSeconds,
    cycle: cycleRows,
    size: sizeRows,
    startup,
    runtimes,
    stores,
    storeWrites: writes,
    storeCycle: storeCycle.rows,
    aiSdk,
    goals,
  };
  await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  const warned = goals.filter((item) => item.verdict === 'WARN').length;
  console.log(
    `\n${goals.length - warned} PASS, ${warned} WARN in ${durationSeconds} s (cycles ${phaseSeconds.cycles} s, otel ${phaseSeconds.otel} s, stores ${phaseSeconds.stores} s, startup ${phaseSeconds.startup} s; load ${load()}); results in bench/results.json`,
  );
}

/** The store rows (round trips, then bytes per resume) over stores opened once, closed at the end. */
async function measureStores(
  histories: Map<number, ChatMessage[]>,
): Promise<{ stores: StoreRow[]; writes: WriteRow[] }> {
  const targets = await openStores();
  try {
    return { stores: await benchStores(histories, targets), writes: await benchStoreWrites(targets) };
  } finally {
    for (const target of targets) if ('close' in target) await target.close();
  }
}

function printWrites(writes: WriteRow[]): void {
  console.log(
    `\nStore writes per resume (row layout 2, issue 19): one sessions.answer; goal: written ≤ ${size(WRITE_SLACK_BYTES)} + the new messages`,
  );
  console.log(
    table(
      ['store', 'history', 'written', 'new messages', 'goal', 'read', 'worker CPU', 'wall'],
      writes.map((row) => [
        row.store,
        `${row.history} msgs`,
        size(row.writtenBytes),
        size(row.newMessagesBytes),
        row.goal ? (row.writtenBytes <= WRITE_SLACK_BYTES + row.newMessagesBytes ? 'PASS' : 'WARN') : '—',
        size(row.readBytes),
        ms(row.cpuMs),
        ms(row.wallMs),
      ]),
    ),
  );
}

/** One goal row: the largest margin used over every store and history (a WARN names the row). */
function writeGoals(writes: WriteRow[]): Goal[] {
  const measured = writes.filter((row) => row.goal);
  if (measured.length === 0) return [];
  const over = (row: WriteRow) => row.writtenBytes - row.newMessagesBytes;
  const worst = measured.reduce((a, b) => (over(b) > over(a) ? b : a));
  return [
    {
      goal: `bytes written per resume ≤ ${size(WRITE_SLACK_BYTES)} + new messages (${measured.length} rows)`,
      measured: `worst ${worst.store} @${worst.history}: ${size(worst.writtenBytes)} = new + ${size(over(worst))}`,
      target: `new + ${size(WRITE_SLACK_BYTES)}`,
      verdict: measured.every((row) => over(row) <= WRITE_SLACK_BYTES) ? 'PASS' : 'WARN',
    },
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
