/**
 * What `otelTelemetry` costs when nothing records (DESIGN §15, issue 17: ≤ 1.05× the cycle without
 * telemetry): on OpenTelemetry's no-op tracer (the API with no SDK registered, as in this process),
 * and — for comparison — on the SDK sampling every trace out, whose own `startSpan` (ids, sampler)
 * runs once per turn. The variants run interleaved, one cycle each in rotating order, rather than
 * as separate tinybench tasks: a difference of a few percent is below what separate tasks resolve,
 * since two tasks run one after the other differ by 10–20 % through their order alone (the JIT and
 * heap state each inherits), while interleaving gives every variant the same state and load.
 */
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { otelTelemetry } from '@turnkit/adapters/otel';
import { type Agent, type ChatMessage, memoryStore } from '@turnkit/core';
import { cycleAgent, runCycle } from './cycle.js';
import { pairedRatio, summarize, type Timing } from './report.js';

const VARIANTS = ['plain', 'noop', 'sampledOut'] as const;
type Variant = (typeof VARIANTS)[number];

/** One length: each variant's timing as the other rows report them, and the paired ratios to `plain`. */
export interface OtelTiming {
  plain: Timing;
  /** `otelTelemetry()` on the API's no-op tracer. */
  noop: Timing;
  /** `otelTelemetry({ tracer })` on the SDK with `AlwaysOffSampler`. */
  sampledOut: Timing;
  noopRatio: number;
  sampledOutRatio: number;
}

/** Time spent interleaving per round and length, after a first-round warm-up as long. */
const ROUND_MS = 250;

/** Interleaves the cycle without telemetry and with `otelTelemetry` on both tracers, in `rounds` rounds. */
export async function benchOtel(
  histories: Map<number, ChatMessage[]>,
  rounds: number,
): Promise<Map<number, OtelTiming>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const sdkTracer = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('turnkit-bench');
  const telemetry = { noop: otelTelemetry(), sampledOut: otelTelemetry({ tracer: sdkTracer }) };
  const sides = [...histories].map(([length, history]) => {
    const agents: Record<Variant, Agent> = {
      plain: cycleAgent(history),
      noop: cycleAgent(history, { telemetry: telemetry.noop }),
      sampledOut: cycleAgent(history, { telemetry: telemetry.sampledOut }),
    };
    const medians = { plain: [] as number[], noop: [] as number[], sampledOut: [] as number[] };
    const pooled = { plain: [] as number[], noop: [] as number[], sampledOut: [] as number[] };
    return { length, history, agents, store: memoryStore(), medians, pooled };
  });
  for (let round = 0; round < rounds; round++) {
    for (const side of sides) {
      const samples = { plain: [] as number[], noop: [] as number[], sampledOut: [] as number[] };
      gc?.();
      const warmUntil = round === 0 ? performance.now() + ROUND_MS : 0;
      const until = Math.max(warmUntil, performance.now()) + ROUND_MS;
      for (let iteration = 0; performance.now() < until; iteration++) {
        for (let slot = 0; slot < VARIANTS.length; slot++) {
          const variant = VARIANTS[(iteration + slot) % VARIANTS.length]!;
          const started = performance.now();
          await runCycle(side.agents[variant], side.history, side.store);
          if (started >= warmUntil) samples[variant].push(performance.now() - started);
        }
      }
      for (const variant of VARIANTS) {
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
    sides.map((side) => {
      const [plain, noop, sampledOut] = VARIANTS.map((variant) =>
        timing(side.pooled[variant], side.medians[variant]),
      ) as [Timing, Timing, Timing];
      return [
        side.length,
        {
          plain,
          noop,
          sampledOut,
          noopRatio: pairedRatio(noop, plain),
          sampledOutRatio: pairedRatio(sampledOut, plain),
        },
      ];
    }),
  );
}
