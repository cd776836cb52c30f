/**
 * The hooks of telemetry (DESIGN §15): a turn is one span — for a sub-agent, one under the parent's
 * tool call — its model calls and tools are children, and a turn that ends paused keeps its span
 * context in the snapshot's `trace` for the turn that resumes it, in any process, to link to. With
 * no `telemetry` on the agent or the call every hook is a cheap no-op. Every span started here is
 * ended here, also when a turn pauses, fails or is aborted.
 */
import { pendingInteractions, type ResolvedRecord, type StoredInteraction } from '../machine/index.js';
import type { InteractionSpanInfo, SpanOutcome, TelemetrySpan } from '../types.js';
import { limitsOf, spentOf } from './budget.js';
import { statusOf } from './result.js';
import { type Run, stateOf } from './run.js';

/** Opens the span of a run's drive: the turn (top run) or the sub-agent's own (child run). */
export function openRunSpan(run: Run): void {
  if (run.parent) {
    run.span = run.parentSpan?.startAgent({
      runId: run.runId,
      agent: run.agent.name,
      agentPath: run.agentPath,
    });
    return;
  }
  const telemetry = run.options.telemetry ?? run.agent.telemetry;
  if (!telemetry) return;
  run.span = telemetry.startTurn({
    runId: run.runId,
    agent: run.agent.name,
    turn: run.turn,
    trigger: run.trigger ?? 'continue',
    ...(run.trace ? { link: run.trace } : {}),
  });
  const resolved = waiting.get(run);
  if (!resolved) return;
  waiting.delete(run);
  for (const info of resolved) traceInteraction(run.span, info);
}

/** Interactions resolved before their run's turn span opened (a resume), for that span to show. */
const waiting = new WeakMap<Run, InteractionSpanInfo[]>();

function traceInteraction(span: TelemetrySpan | undefined, info: InteractionSpanInfo): void {
  span?.startInteraction?.(info).end({ outcome: 'completed' });
}

function topOf(run: Run): Run {
  let top = run;
  while (top.parent) top = top.parent;
  return top;
}

/** Whether the run's turns are traced (a `telemetry` on the call or the top agent). */
export function isTraced(run: Run): boolean {
  const top = topOf(run);
  return (top.options.telemetry ?? top.agent.telemetry) !== undefined;
}

/**
 * Reports a resolved interaction as the human's span: under the turn that goes on from it, with a
 * link to the turn that paused on it (the snapshot's `trace`). A resume resolves before its turn
 * span opens, so the span waits for `openRunSpan`; a parent model's `answer_subagent` resolves
 * inside an open turn, which then takes it at once. With no telemetry this does nothing.
 */
export function traceResolved(
  run: Run,
  interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>,
  record: ResolvedRecord,
): void {
  if (!isTraced(run)) return;
  const top = topOf(run);
  const waitMs = Date.parse(record.at) - Date.parse(interaction.createdAt);
  const info: InteractionSpanInfo = {
    runId: top.runId,
    agent: run.agent.name,
    interactionId: record.id,
    kind: record.kind,
    toolName: interaction.toolName,
    toolCallId: record.toolCallId,
    decision: record.resolution === 'defaulted' ? 'timed_out' : record.resolution,
    ...(Number.isFinite(waitMs) ? { waitMs: Math.max(0, waitMs) } : {}),
  };
  if (top.span) {
    traceInteraction(top.span, info);
    return;
  }
  if (top.trace) info.link = top.trace;
  const queued = waiting.get(top);
  if (queued) queued.push(info);
  else waiting.set(top, [info]);
}

/** Closes the run's span with what the drive came to; a top run that paused keeps its context. */
export function closeRunSpan(run: Run): void {
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
export function modelSpan(run: Run, step: number): (outcome?: SpanOutcome) => void {
  const span = run.span?.startModelCall({
    runId: run.runId,
    agent: run.agent.name,
    model: run.agent.model.name,
    step,
  });
  return span ? (outcome) => span.end(outcome) : noop;
}

/** Starts a tool call's span; `endToolSpan` ends it, or `endOpenToolSpans` if the step leaves it open. */
export function startToolSpan(run: Run, toolCallId: string, toolName: string): void {
  const span = run.span?.startTool({ runId: run.runId, agent: run.agent.name, toolName, toolCallId });
  if (!span) return;
  run.toolSpans ??= new Map();
  run.toolSpans.set(toolCallId, span);
}

/** Ends a tool call's span with its outcome. */
export function endToolSpan(run: Run, toolCallId: string, outcome: SpanOutcome): void {
  const span = run.toolSpans?.get(toolCallId);
  if (!span) return;
  run.toolSpans!.delete(toolCallId);
  span.end(outcome);
}

/** Ends the spans of calls the step left without a result (they asked a human, or were interrupted). */
export function endOpenToolSpans(run: Run): void {
  if (!run.toolSpans?.size) return;
  for (const span of run.toolSpans.values()) span.end({ outcome: 'incomplete' });
  run.toolSpans.clear();
}

/** The span a sub-agent started by this call goes under. */
export function toolSpanOf(run: Run, toolCallId: string): TelemetrySpan | undefined {
  return run.toolSpans?.get(toolCallId);
}

function noop(): void {}
