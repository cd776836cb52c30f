/**
 * What `otelTelemetry` costs when nothing records (DESIGN §15, issue 17: ≤ 1.05× the cycle without
 * telemetry): on OpenTelemetry's no-op tracer (the API with no SDK registered, as in this process),
 * and — for comparison — on the SDK sampling every trace out, whose own `startSpan` (ids, sampler)
 * runs once per turn. The variants run interleaved (interleave.ts).
 */
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { otelTelemetry } from '@turnkit/adapters/otel';
import type { ChatMessage } from '@turnkit/core';
import { cycleAgent } from './cycle.js';
import { interleaved } from './interleave.js';
import { pairedRatio, type Timing } from './report.js';

const VARIANTS = ['plain', 'noop', 'sampledOut'] as const;

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

/** Interleaves the cycle without telemetry and with `otelTelemetry` on both tracers, in `rounds` rounds. */
export async function benchOtel(
  histories: Map<number, ChatMessage[]>,
  rounds: number,
): Promise<Map<number, OtelTiming>> {
  const sdkTracer = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('turnkit-bench');
  const telemetry = { noop: otelTelemetry(), sampledOut: otelTelemetry({ tracer: sdkTracer }) };
  const timings = await interleaved(histories, rounds, VARIANTS, (history) => ({
    plain: cycleAgent(history),
    noop: cycleAgent(history, { telemetry: telemetry.noop }),
    sampledOut: cycleAgent(history, { telemetry: telemetry.sampledOut }),
  }));
  return new Map(
    [...timings].map(([length, { plain, noop, sampledOut }]) => [
      length,
      {
        plain,
        noop,
        sampledOut,
        noopRatio: pairedRatio(noop, plain),
        sampledOutRatio: pairedRatio(sampledOut, plain),
      },
    ]),
  );
}
