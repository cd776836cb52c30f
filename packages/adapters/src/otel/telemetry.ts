/**
 * `otelTelemetry({ tracer? })`: core's `Telemetry` on OpenTelemetry (DESIGN §15). A turn is an
 * `invoke_agent {agent}` span; its model calls (`chat {model}`) and tools (`execute_tool {tool}`)
 * are children, a sub-agent's turn sits under the tool call that started it, and a turn that resumes
 * a paused one — in any process — carries a link to the paused turn's span. Parents are always
 * explicit (`trace.setSpan(context.active(), parent)`), never the ambient context, since the tools
 * of a step run concurrently. Attributes follow the GenAI semantic conventions and are only built
 * when a span records; a turn whose trace is sampled out (or a no-op tracer's) starts no child spans
 * at all, so telemetry that records nothing costs next to nothing.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  defineTelemetry,
  type InteractionSpanInfo,
  type SpanOutcome,
  type Telemetry,
  type TelemetrySpan,
  type TraceContext,
} from '@turnkit/core';

/** Options of {@link otelTelemetry}. */
export interface OtelTelemetryOptions {
  /** Where spans go. Default: the global tracer provider's tracer `@turnkit/adapters` (a no-op until an SDK registers one). */
  tracer?: Tracer;
}

/** Outcomes that mark a span as failed (besides any `errorCode`). */
const FAILED = 'failed';

/** A model name `provider:model` (e.g. `openai:gpt-4.1-mini`) split once, and remembered. */
const modelNames = new Map<string, { provider?: string; model: string }>();

function splitModelName(name: string): { provider?: string; model: string } {
  let split = modelNames.get(name);
  if (!split) {
    const colon = name.indexOf(':');
    split = colon > 0 ? { provider: name.slice(0, colon), model: name.slice(colon + 1) } : { model: name };
    if (modelNames.size < 1000) modelNames.set(name, split);
  }
  return split;
}

/**
 * What a span that is neither recorded nor sampled hands out: its children would not be sampled
 * either (the decision is the turn's, as parent-based samplers take it), so none is started at all.
 */
const UNSAMPLED: TelemetrySpan = {
  startModelCall: () => UNSAMPLED,
  startTool: () => UNSAMPLED,
  startAgent: () => UNSAMPLED,
  startInteraction: () => UNSAMPLED,
  end: () => undefined,
};

/** The tool a human's part is traced as, whichever tool asked: the person plays AskUserQuestion. */
const HUMAN_TOOL = 'AskUserQuestion';

/** One TurnKit span on an OpenTelemetry span; its children use it as their explicit parent. */
class OtelSpan implements TelemetrySpan {
  /** Read at start: a span stops recording when it ends, and core asks for the context after that. */
  private readonly recording: boolean;
  private childContext: Context | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    attributes: () => Attributes,
  ) {
    this.recording = span.isRecording();
    if (this.recording) span.setAttributes(attributes());
  }

  /** The span itself, or {@link UNSAMPLED} when its trace is sampled out (a no-op tracer, a sampler's no). */
  static start(tracer: Tracer, span: Span, attributes: () => Attributes): TelemetrySpan {
    if (!span.isRecording() && (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) {
      span.end();
      return UNSAMPLED;
    }
    return new OtelSpan(tracer, span, attributes);
  }

  get traceContext(): TraceContext | undefined {
    if (!this.recording) return undefined;
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return { traceId, spanId, traceFlags };
  }

  startModelCall(info: { runId: string; agent: string; model: string; step: number }): TelemetrySpan {
    const { provider, model } = splitModelName(info.model);
    return this.child(`chat ${model}`, SpanKind.CLIENT, () => ({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      ...(provider ? { 'gen_ai.provider.name': provider } : {}),
      'gen_ai.agent.name': info.agent,
      'gen_ai.conversation.id': info.runId,
      'turnkit.step': info.step,
    }));
  }

  startTool(info: { runId: string; agent: string; toolName: string; toolCallId: string }): TelemetrySpan {
    return this.child(`execute_tool ${info.toolName}`, SpanKind.INTERNAL, () => ({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': info.toolName,
      'gen_ai.tool.call.id': info.toolCallId,
      'gen_ai.tool.type': 'function',
      'gen_ai.agent.name': info.agent,
      'gen_ai.conversation.id': info.runId,
    }));
  }

  startAgent(info: { runId: string; agent: string; agentPath: string[] }): TelemetrySpan {
    return this.child(`invoke_agent ${info.agent}`, SpanKind.INTERNAL, () => ({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': info.agent,
      'gen_ai.conversation.id': info.runId,
      'turnkit.agent.path': info.agentPath,
    }));
  }

  startInteraction(info: InteractionSpanInfo): TelemetrySpan {
    return this.child(
      `execute_tool ${HUMAN_TOOL}`,
      SpanKind.INTERNAL,
      () => ({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': HUMAN_TOOL,
        'gen_ai.tool.call.id': info.toolCallId,
        'gen_ai.tool.type': 'function',
        'gen_ai.agent.name': info.agent,
        'gen_ai.conversation.id': info.runId,
        'turnkit.interaction.id': info.interactionId,
        'turnkit.interaction.kind': info.kind,
        'turnkit.interaction.tool_name': info.toolName,
        'turnkit.interaction.decision': info.decision,
        ...(info.waitMs !== undefined ? { 'turnkit.interaction.wait_ms': info.waitMs } : {}),
      }),
      linkTo(info.link),
    );
  }

  end(outcome?: SpanOutcome): void {
    if (this.recording && outcome) record(this.span, outcome);
    this.span.end();
  }

  private child(name: string, kind: SpanKind, attributes: () => Attributes, links?: Link[]): TelemetrySpan {
    this.childContext ??= trace.setSpan(context.active(), this.span);
    const span = this.tracer.startSpan(name, links ? { kind, links } : { kind }, this.childContext);
    return OtelSpan.start(this.tracer, span, attributes);
  }
}

/** What a span came to: `turnkit.outcome`, usage, cost and spend, the interactions a turn paused on, error status. */
function record(span: Span, outcome: SpanOutcome): void {
  if (outcome.outcome !== undefined) span.setAttribute('turnkit.outcome', outcome.outcome);
  if (outcome.usage) {
    span.setAttribute('gen_ai.usage.input_tokens', outcome.usage.inputTokens);
    span.setAttribute('gen_ai.usage.output_tokens', outcome.usage.outputTokens);
  }
  // A model call's cost, and a turn's run totals, when priced or budgeted (DESIGN §20).
  if (outcome.costUsd !== undefined) span.setAttribute('turnkit.cost_usd', outcome.costUsd);
  if (outcome.spend) {
    span.setAttribute('turnkit.spend.steps', outcome.spend.steps);
    span.setAttribute('turnkit.spend.tokens', outcome.spend.tokens);
    span.setAttribute('turnkit.spend.tool_calls', outcome.spend.toolCalls);
  }
  if (outcome.interactionIds?.length) span.setAttribute('turnkit.interaction.id', outcome.interactionIds);
  if (outcome.errorCode !== undefined || outcome.outcome === FAILED) {
    const type = outcome.errorCode ?? FAILED;
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  }
}

/** The link to the paused turn a resumed turn carries, when the snapshot kept a valid one. */
function linkTo(paused: TraceContext | undefined): Link[] | undefined {
  if (!paused) return undefined;
  const spanContext = { ...paused, isRemote: true };
  return trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : undefined;
}

/**
 * A `Telemetry` that reports TurnKit's turns to OpenTelemetry. Pass it as `telemetry` on
 * `defineAgent` or in a call's options.
 *
 * - `invoke_agent {agent}` per turn (a child of the caller's active span, if any), with
 *   `gen_ai.agent.name`, `gen_ai.conversation.id` (the run id), `turnkit.turn`, `turnkit.trigger`,
 *   and at its end `turnkit.outcome` (`completed`, `needs_input`, `failed`, `aborted`, `max_steps`)
 *   and `turnkit.interaction.id` (the ids it paused on).
 * - `chat {model}` per model call (`gen_ai.request.model`, `gen_ai.provider.name` from a
 *   `provider:model` adapter name, `gen_ai.usage.input_tokens` / `output_tokens`), and
 *   `execute_tool {tool}` per tool (`gen_ai.tool.name`, `gen_ai.tool.call.id`); a sub-agent's
 *   `invoke_agent` under its `execute_tool`.
 * - Failures (a model error, a tool's error result) set `error.type` and the span's error status.
 * - A turn that resumes a paused one, in any process, links to the paused turn's span (the snapshot
 *   keeps its context while it is recorded).
 * - The human's part: each interaction resolved for a turn (answered, approved, rejected,
 *   cancelled, timed out, superseded) is an `execute_tool AskUserQuestion` span under it, whichever
 *   tool asked, with `turnkit.interaction.id`, `.kind`, `.tool_name`, `.decision` and `.wait_ms`
 *   (from its `createdAt`), linked to the paused turn's span; an approved call then has its own
 *   `execute_tool {tool}` span as usual. Answers, rationales and edited inputs never go into spans.
 * - Sampling is decided per turn: when a turn's span is neither recorded nor sampled, its model
 *   calls, tools and sub-agents start no spans (as with the SDK's default parent-based sampler).
 *
 * @example
 * const agent = defineAgent({ ...config, telemetry: otelTelemetry() });
 */
export function otelTelemetry(options: OtelTelemetryOptions = {}): Telemetry {
  const tracer = options.tracer ?? trace.getTracer('@turnkit/adapters');
  return defineTelemetry({
    startTurn(info) {
      const links = linkTo(info.link);
      const span = tracer.startSpan(
        `invoke_agent ${info.agent}`,
        links ? { kind: SpanKind.INTERNAL, links } : { kind: SpanKind.INTERNAL },
        context.active(),
      );
      return OtelSpan.start(tracer, span, () => ({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': info.agent,
        'gen_ai.conversation.id': info.runId,
        'turnkit.turn': info.turn,
        'turnkit.trigger': info.trigger,
      }));
    },
  });
}
