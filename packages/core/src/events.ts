/**
 * Events (DESIGN §9): every event is numbered in the run's sequence, kept in the call's result and
 * handed to `onEvent`. A sub-agent's events go to the top run with the sub-agent's `agentPath`.
 */
import { now, type Run } from './run.js';
import type { AgentEvent } from './types.js';

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
  const event = Object.assign(body, {
    runId: top.runId,
    turn: top.turn,
    seq: ++top.seq,
    at: isoTime(now(top)),
    agentPath: run.agentPath,
  }) as AgentEvent;
  top.events.push(event);
  try {
    top.options.onEvent?.(event);
  } catch {
    // An observer's bug must not change the run it observes.
  }
}

let lastTime = Number.NaN;
let lastIso = '';

/** `date.toISOString()`, cached for the millisecond: a turn emits many events within one. */
function isoTime(date: Date): string {
  const time = date.getTime();
  if (time !== lastTime) {
    lastTime = time;
    lastIso = date.toISOString();
  }
  return lastIso;
}
