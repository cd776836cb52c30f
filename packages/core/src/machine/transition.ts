/**
 * Following the machine's chart directly (DESIGN §3, §16): the same states, transitions, guards and
 * updates as `agentMachine` — read from the chart it is made of (`chart.ts`) and `rules.ts`, with no
 * XState loaded — applied with the semantics
 * XState gives this chart: the first transition of the state whose guard passes, its updates in
 * order (each seeing the context the previous ones left), then eventless (`always`) transitions
 * until none applies. An event the state does not take leaves it unchanged. XState's general
 * statechart algorithm costs several microseconds per event; this costs a table lookup, and the
 * model-based tests check that both agree on every edge of the machine.
 */
import { CHART, type ChartEdge } from './chart.js';
import { type GuardName, guards, INITIAL_CONTEXT, type UpdateName, updates } from './rules.js';
import type { LoopContext, LoopEvent, LoopStateName } from './state.js';

/** A machine state as the loop keeps it and snapshots store it. */
export interface LoopState {
  value: LoopStateName;
  context: LoopContext;
}

interface Edge {
  guard?: GuardName;
  target: LoopStateName;
  updates: UpdateName[];
}

interface Node {
  on: Map<string, Edge[]>;
  always: Edge[];
}

function edges(raw: ChartEdge | ChartEdge[] | undefined): Edge[] {
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map((edge) => {
    if (typeof edge === 'string') return { target: edge, updates: [] };
    const actions =
      edge.actions === undefined ? [] : Array.isArray(edge.actions) ? edge.actions : [edge.actions];
    return { ...(edge.guard ? { guard: edge.guard } : {}), target: edge.target, updates: actions };
  });
}

/** The chart as lookup tables, built once. */
const chart = new Map<LoopStateName, Node>(
  (Object.entries(CHART) as Array<[LoopStateName, (typeof CHART)[LoopStateName]]>).map(([name, state]) => [
    name,
    {
      on: new Map(
        (Object.entries(state.on ?? {}) as Array<[string, ChartEdge | ChartEdge[]]>).map(([type, raw]) => [
          type,
          edges(raw),
        ]),
      ),
      always: edges(state.always),
    },
  ]),
);

function choose(candidates: Edge[], context: LoopContext, event: LoopEvent): Edge | undefined {
  for (const edge of candidates) if (!edge.guard || guards[edge.guard](context, event)) return edge;
  return undefined;
}

function take(edge: Edge, context: LoopContext, event: LoopEvent): LoopState {
  if (edge.updates.length === 0) return { value: edge.target, context };
  // One fresh context per transition; each update sees the ones before it, as with XState's assign.
  const next = { ...context };
  for (const name of edge.updates) Object.assign(next, updates[name](next, event));
  return { value: edge.target, context: next };
}

/** The state before the first event. */
export function initialState(): LoopState {
  return { value: 'idle', context: INITIAL_CONTEXT };
}

/** The state after `event`, as `transition(agentMachine, …)` would compute it. */
export function transition(state: LoopState, event: LoopEvent): LoopState {
  const edge = chart.get(state.value)?.on.get(event.type);
  const chosen = edge && choose(edge, state.context, event);
  if (!chosen) return state;
  let next = take(chosen, state.context, event);
  // Eventless transitions see the event that started this step, as in XState.
  for (let hops = 0; hops < chart.size; hops++) {
    const always = chart.get(next.value)?.always ?? [];
    const after = always.length > 0 ? choose(always, next.context, event) : undefined;
    if (!after) return next;
    next = take(after, next.context, event);
  }
  throw new Error(`agentMachine: eventless transitions loop from ${next.value}`);
}
