/**
 * The LN2 freezer of the web demo and its two tools. The freezer lives in the run's `context`, so it
 * is saved in every snapshot: a thaw approved in one request is still there in the next, whichever
 * process serves it.
 */
import { defineTool, type ToolContext } from '@turnkit/core';
import { z } from 'zod';

/** Vials of one cell line. */
export interface FreezerLine {
  cellLine: string;
  kind: string;
  rack: string;
  box: number;
  positions: string[];
}

/** The run's context: the freezer as this run sees it. */
export interface Freezer {
  lines: FreezerLine[];
}

/** A fresh freezer for a new run. */
export function initialFreezer(): Freezer {
  return {
    lines: [
      { cellLine: 'K562', kind: 'suspension', rack: 'A', box: 3, positions: ['A3-12', 'A3-13', 'A3-17'] },
      { cellLine: 'HeLa', kind: 'adherent', rack: 'B', box: 1, positions: ['B1-02', 'B1-05'] },
      { cellLine: 'HEK293T', kind: 'adherent', rack: 'B', box: 4, positions: ['B4-07', 'B4-08', 'B4-09'] },
    ],
  };
}

const freezerOf = (ctx: ToolContext): Freezer => ctx.context as Freezer;

/** Lists the vials left, optionally of one cell line. */
export const queryInventory = defineTool({
  name: 'query_inventory',
  description: 'List the vials in the LN2 freezer (all lines, or one cell line).',
  input: z.object({ cellLine: z.string().optional() }),
  execute: (input, ctx) => ({
    lines: freezerOf(ctx)
      .lines.filter((line) => !input.cellLine || line.cellLine === input.cellLine)
      .map(({ cellLine, kind, rack, box, positions }) => ({
        cellLine,
        kind,
        rack,
        box,
        vials: positions.length,
      })),
  }),
});

/** One thawed vial, or a line that is not in the freezer. */
export interface ThawResult {
  thawed: { cellLine: string; position: string }[];
  missing: string[];
  medium: string;
}

/** Takes one vial of each line out of the freezer; needs a human's approval first. */
export const thawVials = defineTool({
  name: 'thaw_vials',
  description: 'Thaw one vial of each given cell line into the given medium. Irreversible.',
  input: z.object({
    cellLines: z.array(z.string().min(1)).min(1).max(6),
    medium: z.string().min(1),
  }),
  needsApproval: (input) =>
    `Thawing ${input.cellLines.length} vial(s) cannot be undone: they must be used today.`,
  execute: (input, ctx): ThawResult => {
    const result: ThawResult = { thawed: [], missing: [], medium: input.medium };
    for (const cellLine of input.cellLines) {
      const line = freezerOf(ctx).lines.find(
        (item) => item.cellLine.toLowerCase() === cellLine.toLowerCase(),
      );
      const position = line?.positions.shift();
      if (line && position) result.thawed.push({ cellLine: line.cellLine, position });
      else result.missing.push(cellLine);
    }
    return result;
  },
});
