/**
 * Events (DESIGN §9): every event is numbered in the run's sequence, kept in the call's result and
 * handed to `onEvent`. A sub-agent's events go to the top run with the sub-agent's `agentPath`.
 */
import type { ResolvedRecord } from '../machine/index.js';
import type { AgentEvent, ChatMessage, Decision, ResolutionKind } from '../types.js';
import { nowIso, type Run } from './run.js';

/** Distributive omit, so each event variant keeps its own fields. */
export type EventBody = AgentEvent extends infer Event
  ? Event extends AgentEvent
    ? Omit<Event, 'runId' | 'turn' | 'seq' | 'at' | 'agentPath'>
    : never
  : never;

/**
 * Records an event and hands it to `onEvent`, whose failures never reach the run. A sub-agent's
 * events go to the top run, numbered in its sequence and tagged with the sub-agent's `agentPath`;
 * its own `turn_*` events are not forwarded.
 */
export function emit(run: Run, body: EventBody): void {
  let top = run;
  while (top.parent) top = top.parent;
  if (top !== run && body.type.startsWith('turn_')) return;
  // Every caller passes a fresh literal, so the header goes onto it instead of a spread copy.
  const event = body as AgentEvent;
  event.runId = top.runId;
  event.turn = top.turn;
  event.seq = ++top.seq;
  // The call's clock: `now`, else the store's (sessions), else the system's — as its interactions.
  event.at = nowIso(top);
  event.agentPath = run.agentPath;
  top.events.push(event);
  try {
    top.options.onEvent?.(event);
  } catch {
    // An observer's bug must not change the run it observes.
  }
}

/** What started a turn, as `turn_started` reports it. */
export type Trigger = 'input' | 'respond' | 'retry' | 'continue' | 'expire' | 'stop';

/** Starts a turn: counts it and emits `turn_started` (with the messages an `input` turn adds). */
export function beginTurn(run: Run, trigger: Trigger, input?: ChatMessage[]): void {
  run.turn++;
  run.trigger = trigger;
  emit(run, { type: 'turn_started', trigger, ...(input ? { input } : {}) });
}

/** The audit decision of a resolution: a default taken at expiry is a timeout. */
function decisionOf(resolution: ResolutionKind): Decision {
  return resolution === 'defaulted' ? 'timed_out' : resolution;
}

/** Emits `interaction_resolved` for a resolved interaction's record, with its audit fields. */
export function emitResolved(run: Run, record: ResolvedRecord, result: string): void {
  emit(run, {
    type: 'interaction_resolved',
    interactionId: record.id,
    toolCallId: record.toolCallId,
    kind: record.kind,
    decision: decisionOf(record.resolution),
    resolution: record.resolution,
    ...(record.rationale !== undefined ? { rationale: record.rationale } : {}),
    ...(record.principal !== undefined ? { principal: record.principal } : {}),
    ...(record.approvals !== undefined ? { approvals: record.approvals } : {}),
    ...(record.extend !== undefined ? { extend: record.extend } : {}),
    ...(record.editedInput !== undefined ? { editedInput: JSON.parse(record.editedInput) } : {}),
    ...(record.answers !== undefined ? { answers: record.answers } : {}),
    ...(record.value !== undefined ? { value: JSON.parse(record.value) } : {}),
    result,
  });
}
