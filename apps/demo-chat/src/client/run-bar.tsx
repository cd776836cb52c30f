/**
 * What the web demo shows of a run beside its chat (DESIGN §20): its spend against its budget
 * ("Budget: 4 / 12 steps", read from the run with `GET /api/runs/:id` after each turn), a Stop
 * button while a turn plays (`POST /api/runs/:id/stop`: the turn ends `aborted` wherever it
 * plays, a running tool finishes and its result is kept), and a line when the last turn ended
 * early ("Stopped: …", "Budget exceeded: …"). A budget interaction itself is a card in the
 * message (`BudgetCard`).
 */
import { useEffect, useState } from 'react';

/** A limit or a spend: what `budget` and `spend` hold in the run's view. */
export type Amounts = Partial<Record<'steps' | 'tokens' | 'toolCalls' | 'costUsd', number>>;

/** The part of the run's view (`GET /api/runs/:id`) this bar reads. */
export interface RunState {
  status: string;
  spend?: Amounts;
  budget?: Amounts;
}

const UNITS: [keyof Amounts, (n: number) => string][] = [
  ['steps', (n) => `${n} ${n === 1 ? 'step' : 'steps'}`],
  ['tokens', (n) => `${n} tokens`],
  ['toolCalls', (n) => `${n} tool ${n === 1 ? 'call' : 'calls'}`],
  ['costUsd', (n) => `$${n.toFixed(4)}`],
];

/** `"3 steps, $0.0100"`: the amounts a limit names. */
export function amountsText(values: Amounts, of: Amounts = values): string {
  return UNITS.filter(([key]) => typeof of[key] === 'number')
    .map(([key, unit]) => unit(values[key] ?? 0))
    .join(', ');
}

/** `"4 / 12 steps"`: the spend against each limit of the budget. */
export function budgetText(spend: Amounts | undefined, budget: Amounts): string {
  return UNITS.filter(([key]) => typeof budget[key] === 'number')
    .map(([key, unit]) =>
      key === 'costUsd'
        ? `${unit(spend?.[key] ?? 0)} / ${unit(budget[key]!)}`
        : `${spend?.[key] ?? 0} / ${unit(budget[key]!)}`,
    )
    .join(' · ');
}

/** The run's view, read again whenever `version` changes (and not while a turn plays); null until read. */
export function useRunState(
  runId: string,
  started: boolean,
  busy: boolean,
  version: unknown,
): RunState | null {
  const [state, setState] = useState<RunState | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` (the chat's messages) says when to read again.
  useEffect(() => {
    if (!started || busy) return;
    const controller = new AbortController();
    fetch(`/api/runs/${encodeURIComponent(runId)}`, {
      headers: { accept: 'application/json' },
      signal: controller.signal,
    })
      .then((response) => (response.ok ? (response.json() as Promise<RunState>) : null))
      .then((view) => {
        if (view) setState(view);
      })
      // The bar is extra: a failed read leaves the last one.
      .catch(() => {});
    return () => controller.abort();
  }, [runId, started, busy, version]);
  return state;
}

export function RunBar(props: { runId: string; started: boolean; busy: boolean; run: RunState | null }) {
  const [stopping, setStopping] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!props.busy) setStopping(false);
  }, [props.busy]);
  const stop = async () => {
    setStopping(true);
    setProblem(null);
    const response = await fetch(`/api/runs/${encodeURIComponent(props.runId)}/stop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ reason: 'stopped from the page' }),
    }).catch((error: Error) => error);
    if (response instanceof Error || !response.ok) {
      setStopping(false);
      setProblem(`Could not stop: ${response instanceof Error ? response.message : response.status}`);
    }
  };
  const run = props.busy ? null : props.run;
  return (
    <div className="run-bar">
      {run?.status === 'aborted' && (
        <p className="turn-end" role="status">
          Stopped: you stopped this turn. A tool already running finished and its result is kept; send a
          message to go on.
        </p>
      )}
      {run?.status === 'budget_exceeded' && run.budget && (
        <p className="turn-end" role="status">
          Budget exceeded: the run stopped after spending {budgetText(run.spend, run.budget)}. Send a message
          to ask for more.
        </p>
      )}
      {props.run?.budget && (
        <p className="budget" id="budget">
          Budget: {budgetText(props.run.spend, props.run.budget)}
        </p>
      )}
      {props.started && props.busy && (
        <button type="button" className="stop" disabled={stopping} onClick={() => void stop()}>
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      )}
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
    </div>
  );
}
