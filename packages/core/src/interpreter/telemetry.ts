/**
 * The hooks of telemetry (DESIGN §15): a turn is one span — for a sub-agent, one under the parent's
 * tool call — its model calls and tools are children, and a turn that ends paused keeps its span
 * context in the snapshot's `trace` for the turn that resumes it, in any process, to link to. These
 * hooks travel with the `telemetry` value ({@link defineTelemetry}): the loop reaches them through
 * `tracingOf(run)`, so a program without telemetry bundles none of this. Every span started here is
 * ended here, also when a turn pauses, fails or is aborted.
 */

import { TurnkitError } from '../errors.js';
import { TRACING, withCode } from '../keys.js';
import {
  pendingInteractions,
  type ResolvedRecord,
  type ResolvedSpan,
  type StoredInteraction,
} from '../machine/index.js';
import type { InteractionSpanInfo, SpanOutcome, Telemetry, TelemetrySpan, TurnTracer } from '../types.js';
import { limitsOf, spentOf } from './budget.js';
import { statusOf } from './result.js';
import { type Run, rootOf, stateOf, type Tracing } from './run.js';

/** Opens the span of a run's drive: the turn (top run) or the sub-agent's own (child run). */
function openRunSpan(run: Run): void {
  if (run.parent) {
    run.span = run.parentSpan?.startAgent({
      runId: run.runId,
      agent: run.agent.name,
      agentPath: run.agentPath,
    });
    return;
  }
  const telemetry = run.options.telemetry ?? rootOf(run).telemetry;
  if (!telemetry) return;
  run.span = telemetry.startTurn({
    runId: run.runId,
    agent: run.agent.name,
    turn: run.turn,
    trigger: run.trigger ?? 'continue',
    ...(run.trace ? { link: run.trace } : {}),
  });
  for (const record of keptForTurn(run)) traceInteraction(run.span, infoOf(run, record, record.span!));
  const resolved = waiting.get(run);
  if (!resolved) return;
  waiting.delete(run);
  for (const info of resolved) traceInteraction(run.span, info);
}

/**
 * The records resolved for this turn that keep their span (the response that began it): read from
 * the context, so whichever process plays the turn — a background worker's — reports them, once.
 */
function keptForTurn(run: Run): ResolvedRecord[] {
  const resolved = run.state.context.resolved;
  let start = resolved.length;
  // Records are appended in turn order: stop at the first one kept for an earlier turn.
  while (start > 0) {
    const span = resolved[start - 1]!.span;
    if (span && span.turn < run.turn) break;
    start--;
  }
  return resolved.slice(start).filter((record) => record.span?.turn === run.turn);
}

/** Superseded interactions (not in the resolved records) resolved before the turn span opened. */
const waiting = new WeakMap<Run, InteractionSpanInfo[]>();

function traceInteraction(span: TelemetrySpan | undefined, info: InteractionSpanInfo): void {
  span?.startInteraction?.(info).end({ outcome: 'completed' });
}

function topOf(run: Run): Run {
  let top = run;
  while (top.parent) top = top.parent;
  return top;
}

/**
 * Keeps on a record, before the machine takes it, what its human's span needs when the span must
 * wait for the turn that goes on from it (a resume: the turn's span is not open yet). That turn
 * reports it from the snapshot in `openRunSpan`, in whichever process plays it. With no telemetry,
 * or inside an open turn (a parent model's `answer_subagent`), the record keeps nothing.
 */
function keepSpan(
  run: Run,
  interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>,
  record: ResolvedRecord,
): void {
  if (topOf(run).span) return;
  record.span = spanOf(run, interaction);
}

/** What the human's span of an interaction of `run` needs beside its record. */
function spanOf(run: Run, interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>): ResolvedSpan {
  const top = topOf(run);
  return {
    turn: top.turn,
    askedAt: interaction.createdAt,
    toolName: interaction.toolName,
    ...(run.agent.name !== top.agent.name ? { agent: run.agent.name } : {}),
  };
}

/** The human's span info of a resolved record, in its top run. */
function infoOf(top: Run, record: ResolvedRecord, span: ResolvedSpan): InteractionSpanInfo {
  const waitMs = Date.parse(record.at) - Date.parse(span.askedAt);
  return {
    runId: top.runId,
    agent: span.agent ?? top.agent.name,
    interactionId: record.id,
    kind: record.kind,
    toolName: span.toolName,
    toolCallId: record.toolCallId,
    decision: record.resolution === 'defaulted' ? 'timed_out' : record.resolution,
    ...(Number.isFinite(waitMs) ? { waitMs: Math.max(0, waitMs) } : {}),
    ...(top.trace ? { link: top.trace } : {}),
  };
}

/**
 * Reports a resolved interaction as the human's span: under the turn that goes on from it, with a
 * link to the turn that paused on it (the snapshot's `trace`). A parent model's `answer_subagent`
 * resolves inside an open turn, which takes it at once (no link); a resume resolves before its
 * turn span opens: its record keeps the span (`keepSpan`) for `openRunSpan`, and a superseded
 * interaction, which leaves no record, waits in memory. With no telemetry this does nothing.
 */
function traceResolved(
  run: Run,
  interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>,
  record: ResolvedRecord,
): void {
  if (record.span) return;
  const top = topOf(run);
  const span = spanOf(run, interaction);
  if (top.span) {
    const { link: _paused, ...info } = infoOf(top, record, span);
    traceInteraction(top.span, info);
    return;
  }
  const queued = waiting.get(top);
  const info = infoOf(top, record, span);
  if (queued) queued.push(info);
  else waiting.set(top, [info]);
}

/** Closes the run's span with what the drive came to; a top run that paused keeps its context. */
function closeRunSpan(run: Run): void {
  const span = run.span;
  if (!span) return;
  run.span = undefined;
  const status = statusOf(stateOf(run));
  const paused = status === 'needs_input';
  const interactionIds = paused ? pendingInteractions(run.state.context).map((item) => item.id) : undefined;
  // A run's spending goes on its turn span when it is counted against something: a budget or prices.
  const counted = !run.parent && (limitsOf(run) !== undefined || run.agent.pricing !== undefined);
  const spend = counted ? spentOf(run) : undefined;
  span.end({
    outcome: status,
    ...(interactionIds ? { interactionIds } : {}),
    ...(spend ? { spend, costUsd: spend.costUsd } : {}),
  });
  if (run.parent) return;
  if (paused && span.traceContext) run.trace = span.traceContext;
  else if (!paused) delete run.trace;
}

/** Starts a model call's span (ended by the returned function). */
function modelSpan(run: Run, step: number): (outcome?: SpanOutcome) => void {
  const span = run.span?.startModelCall({
    runId: run.runId,
    agent: run.agent.name,
    model: run.agent.model.name,
    step,
  });
  return span ? (outcome) => span.end(outcome) : noop;
}

/** Starts a tool call's span; `endToolSpan` ends it, or `endOpenToolSpans` if the step leaves it open. */
function startToolSpan(run: Run, toolCallId: string, toolName: string): void {
  const span = run.span?.startTool({ runId: run.runId, agent: run.agent.name, toolName, toolCallId });
  if (!span) return;
  run.toolSpans ??= new Map();
  run.toolSpans.set(toolCallId, span);
}

/** Ends a tool call's span with its outcome. */
function endToolSpan(run: Run, toolCallId: string, outcome: SpanOutcome): void {
  const span = run.toolSpans?.get(toolCallId);
  if (!span) return;
  run.toolSpans!.delete(toolCallId);
  span.end(outcome);
}

/** Ends the spans of calls the step left without a result (they asked a human, or were interrupted). */
function endOpenToolSpans(run: Run): void {
  if (!run.toolSpans?.size) return;
  for (const span of run.toolSpans.values()) span.end({ outcome: 'incomplete' });
  run.toolSpans.clear();
}

function noop(): void {}

/** TurnKit's tracing hooks, as a `telemetry` value carries them (reached by `tracingOf(run)`). */
const TRACING_HOOKS: Tracing = {
  openRunSpan,
  closeRunSpan,
  modelSpan,
  startToolSpan,
  endToolSpan,
  endOpenToolSpans,
  keepSpan,
  traceResolved,
};

/**
 * The `telemetry` option for a tracer of your own (DESIGN §15): `startTurn` opens each turn's
 * span; TurnKit starts the model, tool, sub-agent and interaction spans under it and ends every one.
 * `otelTelemetry()` from `@turnkit/adapters/otel` is made with it. A function rather than a plain
 * object so that TurnKit's tracing code comes with it: an agent without telemetry bundles none.
 *
 * @throws {TurnkitError} `CONFIG_INVALID` when `tracer` has no `startTurn` function.
 * @example
 * const telemetry = defineTelemetry({ startTurn: (info) => mySpans.open(`turn ${info.turn}`, info) });
 * const agent = defineAgent({ name: 'desk', instructions: 'Help.', model, telemetry });
 */
export function defineTelemetry(tracer: TurnTracer): Telemetry {
  if (typeof tracer?.startTurn !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'defineTelemetry: pass a tracer with a startTurn(info) method that returns the turn span.',
    );
  }
  const telemetry: TurnTracer = { startTurn: (info) => tracer.startTurn(info) };
  return withCode(telemetry, TRACING, TRACING_HOOKS) as Telemetry;
}
