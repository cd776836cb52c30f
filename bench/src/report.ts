/**
 * Formatting of the printed tables and the goals of issue 4, checked as PASS/WARN (a ratio never
 * fails the process: timing on shared machines is noisy; only a broken run does).
 */
import { Bench, type BenchOptions, type Task } from 'tinybench';

/** The summary kept of a timed task. */
export interface Timing {
  /** The median; for tasks run in rounds, the lowest of the rounds' medians (see {@link runRounds}). */
  medianMs: number;
  p75Ms: number;
  p99Ms: number;
  samples: number;
  /** Tasks run in rounds: each round's median, and the median of all samples pooled. */
  roundMediansMs?: number[];
  pooledMedianMs?: number;
}

function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

/** Median and spread of samples (ms). */
export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    medianMs: quantile(sorted, 0.5),
    p75Ms: quantile(sorted, 0.75),
    p99Ms: quantile(sorted, 0.99),
    samples: sorted.length,
  };
}

/** Median of a finished tinybench task; throws if it recorded no statistics. */
export function timingOf(task: Task | undefined): Timing {
  return summarize(samplesOf(task));
}

function samplesOf(task: Task | undefined): number[] {
  const result = task?.result;
  if (!result || !('latency' in result) || !result.latency.samples) {
    const error = result && 'error' in result ? result.error : undefined;
    throw new Error(`task ${task?.name ?? '?'} has no samples${error ? `: ${error.message}` : ''}`, {
      cause: error,
    });
  }
  return result.latency.samples;
}

/**
 * A tinybench `Bench` that keeps samples, fails on a broken task, and starts every task (and its
 * warm-up) on a collected heap when Node runs with `--expose-gc`: otherwise the garbage one task
 * leaves (the JSON floor allocates a lot) is collected on the next task's clock.
 */
export function newBench(options: Pick<BenchOptions, 'time' | 'warmupTime' | 'iterations'>): Bench {
  const gc = (globalThis as { gc?: () => void }).gc;
  return new Bench({ ...options, throws: true, retainSamples: true, setup: () => gc?.() });
}

/**
 * Runs every task of `bench` (built with `retainSamples: true`) in several short rounds, so tasks
 * compared with each other (a cycle and its JSON floor) run close together in time. On a shared
 * machine, other work comes and goes in bursts that slow whole rounds: each task reports the lowest
 * of its rounds' medians (its cost when undisturbed), with every round's median and the pooled
 * samples' spread kept alongside.
 */
export async function runRounds(bench: Bench, rounds: number): Promise<Map<string, Timing>> {
  const pooled = new Map<string, number[]>();
  const medians = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    // A finished task does not run again until reset.
    bench.reset();
    await bench.run();
    for (const task of bench.tasks) {
      const samples = samplesOf(task);
      pooled.set(task.name, [...(pooled.get(task.name) ?? []), ...samples]);
      medians.set(task.name, [...(medians.get(task.name) ?? []), summarize(samples).medianMs]);
    }
  }
  return new Map(
    [...pooled].map(([name, samples]) => {
      const all = summarize(samples);
      const roundMediansMs = medians.get(name)!;
      return [
        name,
        { ...all, medianMs: Math.min(...roundMediansMs), pooledMedianMs: all.medianMs, roundMediansMs },
      ];
    }),
  );
}

/**
 * `a / b` for two tasks run in the same rounds: the median of the per-round ratios, so each ratio
 * compares two timings taken under the same load.
 */
export function pairedRatio(a: Timing, b: Timing): number {
  const rounds = a.roundMediansMs ?? [a.medianMs];
  const ratios = rounds.map((value, round) => value / (b.roundMediansMs?.[round] ?? b.medianMs));
  return summarize(ratios).medianMs;
}

/** Milliseconds with the precision that matters at that scale. */
export function ms(value: number): string {
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  if (value >= 0.1) return `${value.toFixed(3)} ms`;
  return `${value.toFixed(4)} ms`;
}

/** Bytes as KiB (one decimal) or plain bytes below 1 KiB. */
export function size(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;
}

/** A ratio, `2.31×`. */
export function times(value: number): string {
  return `${value.toFixed(2)}×`;
}

/** Left-aligned first column, right-aligned numbers. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)]
    .map((text) => `  ${text}`)
    .join('\n');
}

/** One goal of the issue, as measured in this run. */
export interface Goal {
  goal: string;
  measured: string;
  target: string;
  verdict: 'PASS' | 'WARN';
}

/** A goal from a measured value and its limit (`value <= limit` passes). */
export function goal(name: string, measured: number, limit: number, format: (value: number) => string): Goal {
  return {
    goal: name,
    measured: format(measured),
    target: `≤ ${format(limit)}`,
    verdict: measured <= limit ? 'PASS' : 'WARN',
  };
}

/** A goal from a measured value and its minimum (`value >= minimum` passes): a lead to keep. */
export function goalAtLeast(
  name: string,
  measured: number,
  minimum: number,
  format: (value: number) => string,
): Goal {
  return {
    goal: name,
    measured: format(measured),
    target: `≥ ${format(minimum)}`,
    verdict: measured >= minimum ? 'PASS' : 'WARN',
  };
}

/** The goals table. */
export function goalsTable(goals: Goal[]): string {
  return table(
    ['goal', 'measured', 'target', ''],
    goals.map((item) => [item.goal, item.measured, item.target, item.verdict]),
  );
}
