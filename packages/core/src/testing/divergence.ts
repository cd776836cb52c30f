/**
 * Where today's agent acts otherwise than a recording (DESIGN §28): the divergences `replay`
 * returns, and the readable diff `assertReplay` throws.
 */

/**
 * What diverged: `tool_call` (the model called another tool or with another input — with
 * `model: 'live'` — or today's agent hands the run to another agent, or to none, DESIGN §27),
 * `pause` (today's agent pauses where the recording did not, or does not where it
 * did, or refuses the recorded response: a changed approval rule, assignee rule or budget),
 * `tool_changed` (today's tool schema refuses a recorded call; a transfer call whose agent is gone), `output` (today's `output` schema
 * refuses the recorded final answer), `missing` (the recording lacks what is needed: redacted, or
 * never recorded).
 */
export type DivergenceKind = 'tool_call' | 'pause' | 'tool_changed' | 'output' | 'missing';

/** One place where today's agent acts otherwise than the recording. */
export interface Divergence {
  /** The turn of the run (1 first), as numbered in the recording. */
  turn: number;
  /** The model call within the turn (1 first; 0 before the turn's first model call). */
  step: number;
  kind: DivergenceKind;
  /** What the recording did there. */
  expected: unknown;
  /** What today's agent did. */
  actual: unknown;
  /** One sentence saying what differs. */
  message: string;
}

function show(value: unknown): string {
  if (value === undefined) return '(nothing)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The readable diff of a replay's divergences: one block per divergence, with its turn, step and
 * kind, what was recorded and what today's agent did.
 */
export function formatDivergences(header: string, divergences: readonly Divergence[]): string {
  const lines = [`${header}: ${divergences.length} divergence${divergences.length === 1 ? '' : 's'}`];
  for (const divergence of divergences) {
    lines.push(
      '',
      `turn ${divergence.turn}, step ${divergence.step} — ${divergence.kind}: ${divergence.message}`,
      `  - expected (recorded): ${show(divergence.expected)}`,
      `  + actual (today):      ${show(divergence.actual)}`,
    );
  }
  return lines.join('\n');
}
