/**
 * An OpenTelemetry SDK tracer for the `otelTelemetry` tests: spans go to an in-memory exporter,
 * every started span is tracked until it ends (so a test sees one left open), and finished spans are
 * read back as plain records (ids, parent, links, attributes, status) that can also cross a process
 * boundary as JSON.
 */
import type { Context } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A finished span, as plain data. */
export interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  links: Array<{ traceId: string; spanId: string }>;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
}

function toRecord(span: ReadableSpan): SpanRecord {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
    attributes: { ...span.attributes },
    status: { ...span.status },
  };
}

/** A tracer whose spans are recorded; `open` names the spans started and not yet ended. */
export function recordingTracer(sampler?: Sampler) {
  const exporter = new InMemorySpanExporter();
  const open = new Set<Span>();
  const tracking: SpanProcessor = {
    onStart: (span: Span, _parent: Context) => void open.add(span),
    onEnd: (span: ReadableSpan) => void open.delete(span as Span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({
    ...(sampler ? { sampler } : {}),
    spanProcessors: [tracking, new SimpleSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer('turnkit-test'),
    /** Names of the spans still open. */
    open: () => [...open].map((span) => span.name),
    /** The finished spans, in the order they ended. */
    spans: () => exporter.getFinishedSpans().map(toRecord),
    reset: () => exporter.reset(),
  };
}
