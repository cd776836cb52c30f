/**
 * Variants of the cycle timed against each other, interleaved: one cycle each in rotating order
 * rather than separate tinybench tasks. A difference of a few percent is below what separate tasks
 * resolve, since two tasks run one after the other differ by 10–20 % through their order alone (the
 * JIT and heap state each inherits), while interleaving gives every variant the same state and load.
 * Used by the otel rows (telemetry on and off) and the hooks row (three pass-through hooks or none).
 */
import { type Agent, type ChatMessage, memoryStore } from '@turnkit/core';
import { runCycle } from './cycle.js';
import { summarize, type Timing } from './report.js';

/** Time spent interleaving per round and length, after a first-round warm-up as long. */
const ROUND_MS = 250;

/**
 * Interleaves the cycle of each variant's agent (made per history by `agents`) in `rounds` rounds;
 * per length, each variant's timing (its median the lowest of the rounds' medians).
 */
export async function interleaved<V extends string>(
  histories: Map<number, ChatMessage[]>,
  rounds: number,
  variants: readonly V[],
  agents: (history: ChatMessage[]) => Record<V, Agent>,
): Promise<Map<number, Record<V, Timing>>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const empty = () =>
    Object.fromEntries(variants.map((variant) => [variant, [] as number[]])) as Record<V, number[]>;
  const sides = [...histories].map(([length, history]) => ({
    length,
    history,
    agents: agents(history),
    store: memoryStore(),
    medians: empty(),
    pooled: empty(),
  }));
  for (let round = 0; round < rounds; round++) {
    for (const side of sides) {
      const samples = empty();
      gc?.();
      const warmUntil = round === 0 ? performance.now() + ROUND_MS : 0;
      const until = Math.max(warmUntil, performance.now()) + ROUND_MS;
      for (let iteration = 0; performance.now() < until; iteration++) {
        for (let slot = 0; slot < variants.length; slot++) {
          const variant = variants[(iteration + slot) % variants.length]!;
          const started = performance.now();
          await runCycle(side.agents[variant], side.history, side.store);
          if (started >= warmUntil) samples[variant].push(performance.now() - started);
        }
      }
      for (const variant of variants) {
        side.medians[variant].push(summarize(samples[variant]).medianMs);
        side.pooled[variant].push(...samples[variant]);
      }
    }
  }
  const timing = (pooled: number[], medians: number[]): Timing => {
    const all = summarize(pooled);
    return { ...all, medianMs: Math.min(...medians), pooledMedianMs: all.medianMs, roundMediansMs: medians };
  };
  return new Map(
    sides.map((side) => [
      side.length,
      Object.fromEntries(
        variants.map((variant) => [variant, timing(side.pooled[variant], side.medians[variant])]),
      ) as Record<V, Timing>,
    ]),
  );
}
