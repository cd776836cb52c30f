/**
 * A slow tool of the demo: `count_vials` counts the vials box by box, which takes a while (the
 * agent's `countMs`), so the page's Stop button has a running tool to stop after: the count
 * finishes, its result is kept, and the model is not called again.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { defineTool, type ToolContext } from '@turnkit/core';
import { z } from 'zod';
import { boxOf, type Freezer } from './freezer.js';

/** What `count_vials` reports: vials per box, and the total. */
export interface CountResult {
  boxes: Record<string, number>;
  total: number;
}

/** Whether a user's message asks for a count of the freezer ("count", "清点"). */
export function isCountRequest(text: string): boolean {
  return /\bcount\b|清点/i.test(text);
}

/** The `count_vials` tool, taking `countMs` to count (default 2000 ms). */
export function countVials(countMs = 2000) {
  return defineTool({
    name: 'count_vials',
    description: 'Count the vials in every box of the LN2 freezer, box by box (slow).',
    input: z.object({}),
    execute: async (_input, ctx: ToolContext): Promise<CountResult> => {
      // A stop does not interrupt a running tool: the count finishes and is kept.
      await delay(countMs);
      const boxes: Record<string, number> = {};
      for (const line of (ctx.context as Freezer).lines)
        for (const position of line.positions) boxes[boxOf(position)] = (boxes[boxOf(position)] ?? 0) + 1;
      return { boxes, total: Object.values(boxes).reduce((sum, n) => sum + n, 0) };
    },
  });
}
