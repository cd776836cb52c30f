/**
 * A budget card: the run has spent its budget and asks before the next model or tool call (a
 * `budget` interaction, which the AI SDK mount shows as a synthetic `tool-AskUserQuestion` part
 * whose input is `{ spent, limit }`). Approve extends each limit reached by half of it; Stop
 * rejects, and the turn ends `budget_exceeded`.
 */
import { type Amounts, amountsText } from './run-bar.js';

/** The input of a budget interaction's part. */
export interface BudgetInput {
  spent: Amounts;
  limit: Amounts;
}

/** What Approve adds: half of each limit again (at least one step, call or token). */
export function extensionOf(limit: Amounts): Amounts {
  const extend: Amounts = {};
  for (const key of ['steps', 'tokens', 'toolCalls', 'costUsd'] as const) {
    const value = limit[key];
    if (typeof value !== 'number') continue;
    extend[key] = key === 'costUsd' ? Math.max(0.0001, value / 2) : Math.max(1, Math.ceil(value / 2));
  }
  return extend;
}

export function BudgetCard(props: { input: BudgetInput; onDecide: (extend: Amounts | null) => void }) {
  const { spent, limit } = props.input;
  const extend = extensionOf(limit);
  const more = amountsText(extend);
  return (
    <form className="card budget-card" onSubmit={(event) => event.preventDefault()}>
      <p className="title">Budget reached</p>
      <p className="budget-ask">
        This run has spent {amountsText(spent, limit)} of {amountsText(limit)}. Allow another {more}?
      </p>
      <div className="actions">
        <button type="button" onClick={() => props.onDecide(extend)}>
          Approve (+{more})
        </button>
        <button type="button" className="secondary" onClick={() => props.onDecide(null)}>
          Stop
        </button>
      </div>
    </form>
  );
}
