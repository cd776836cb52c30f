/**
 * What hooks cost when they decide nothing (DESIGN §26: an agent with three pass-through hooks at
 * every point costs ≤ 5 % more per cycle than one without, at 10 messages): the cycle's two model
 * calls each pass `beforeModel` and `afterModel` of three hooks that return nothing. Interleaved
 * with the cycle without hooks (interleave.ts).
 */
import { type ChatMessage, defineHook } from '@turnkit/core';
import { cycleAgent } from './cycle.js';
import { interleaved } from './interleave.js';
import { pairedRatio, type Timing } from './report.js';

/** Three hooks with a function at every point, each going on without a decision. */
const PASS_THROUGH = ['first', 'second', 'third'].map((name) =>
  defineHook({
    name,
    beforeModel: () => undefined,
    afterModel: () => undefined,
    beforeTool: () => undefined,
    afterTool: () => undefined,
  }),
);

/** One length: the cycle without hooks and with three pass-through hooks, and their paired ratio. */
export interface HooksTiming {
  plain: Timing;
  hooks: Timing;
  ratio: number;
}

/** Interleaves the cycle without hooks and with three pass-through hooks, in `rounds` rounds. */
export async function benchHooks(
  histories: Map<number, ChatMessage[]>,
  rounds: number,
): Promise<Map<number, HooksTiming>> {
  const timings = await interleaved(histories, rounds, ['plain', 'hooks'] as const, (history) => ({
    plain: cycleAgent(history),
    hooks: cycleAgent(history, { hooks: PASS_THROUGH }),
  }));
  return new Map(
    [...timings].map(([length, { plain, hooks }]) => [
      length,
      { plain, hooks, ratio: pairedRatio(hooks, plain) },
    ]),
  );
}
