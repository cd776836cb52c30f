/**
 * The LN2 freezer of the web demo and its two tools. The freezer lives in the run's `context`, so it
 * is saved in every snapshot: a thaw approved in one request is still there in the next, whichever
 * process serves it.
 *
 * A position names its box (`B1-02` is rack B, box 1, slot 02), and a line may sit in several
 * boxes. `thaw_vials` is a tool that asks mid-execution (DESIGN §14): when a line to thaw is in
 * more than one box, its `execute` returns `ctx.ask({ input })`, a form with one choice per such
 * line (which box), and the answer runs its `resume` — never `execute` again. The audit trail
 * records each step, so the tests can prove it.
 */
import { defineTool, type ToolContext } from '@turnkit/core';
import { z } from 'zod';

/** Vials of one cell line, wherever they are. */
export interface FreezerLine {
  cellLine: string;
  kind: string;
  /** Positions as `<rack><box>-<slot>`, e.g. `A3-12`. */
  positions: string[];
}

/** One step of a tool, as the audit trail keeps it. */
export interface AuditEntry {
  tool: string;
  step: 'execute' | 'resume';
  /** The call's idempotency key (`<runId>:<toolCallId>`). */
  key: string;
}

/** The run's context: the freezer as this run sees it, and the language its forms speak. */
export interface Freezer {
  lines: FreezerLine[];
  /** Absent in runs saved before the audit trail existed. */
  audit?: AuditEntry[];
  lang?: 'en' | 'zh';
}

/** A fresh freezer for a new run; its forms speak `lang`. */
export function initialFreezer(lang: 'en' | 'zh' = 'en'): Freezer {
  return {
    lines: [
      { cellLine: 'K562', kind: 'suspension', positions: ['A3-12', 'A3-13', 'A3-17'] },
      { cellLine: 'HeLa', kind: 'adherent', positions: ['B1-02', 'B1-05', 'D2-11', 'D2-12'] },
      { cellLine: 'HEK293T', kind: 'adherent', positions: ['B4-07', 'B4-08', 'B4-09'] },
    ],
    audit: [],
    lang,
  };
}

/** The box of a position: `B1` for `B1-02`. */
export const boxOf = (position: string): string => position.split('-')[0] ?? position;

/** The boxes a line's vials are in, in the order of its positions. */
export const boxesOf = (line: FreezerLine): string[] => [...new Set(line.positions.map(boxOf))];

const freezerOf = (ctx: ToolContext): Freezer => ctx.context as Freezer;

/** Lists the vials left, optionally of one cell line. */
export const queryInventory = defineTool({
  name: 'query_inventory',
  description: 'List the vials in the LN2 freezer (all lines, or one cell line), with the boxes they are in.',
  input: z.object({ cellLine: z.string().optional() }),
  execute: (input, ctx) => ({
    lines: freezerOf(ctx)
      .lines.filter((line) => !input.cellLine || line.cellLine === input.cellLine)
      .map((line) => ({
        cellLine: line.cellLine,
        kind: line.kind,
        boxes: boxesOf(line),
        vials: line.positions.length,
      })),
  }),
});

/**
 * The vials thawed, each with how many of its line are left in the freezer once the thaw is done
 * (the plan's `vialsLeft`), and the lines that are not in the freezer.
 */
export interface ThawResult {
  thawed: { cellLine: string; position: string; vialsLeft: number }[];
  missing: string[];
  medium: string;
}

const TEXT = {
  en: {
    message: 'Some of these lines are in more than one box. Which box should each vial come from?',
    where: (box: string, positions: string[]) => `${box}: ${positions.length} vial(s)`,
  },
  zh: {
    message: '有的细胞系分放在多个盒子里。每支从哪个盒子取？',
    where: (box: string, positions: string[]) => `${box} 盒 ${positions.length} 支`,
  },
} as const;

type ThawInput = { cellLines: string[]; medium: string };

const find = (freezer: Freezer, cellLine: string) =>
  freezer.lines.find((item) => item.cellLine.toLowerCase() === cellLine.toLowerCase());

/** Takes one vial of each line, from the box chosen for it (else its first). */
function thaw(freezer: Freezer, input: ThawInput, chosen: Record<string, string> = {}): ThawResult {
  const taken: { line: FreezerLine; position: string }[] = [];
  const missing: string[] = [];
  for (const cellLine of input.cellLines) {
    const line = find(freezer, cellLine);
    const box = line ? chosen[line.cellLine] : undefined;
    const at = line?.positions.findIndex((position) => box === undefined || boxOf(position) === box) ?? -1;
    const [position] = line && at !== -1 ? line.positions.splice(at, 1) : [];
    if (line && position) taken.push({ line, position });
    else missing.push(cellLine);
  }
  // Counted once every vial is out, so a line thawed twice shows the same count on both rows.
  const thawed = taken.map(({ line, position }) => ({
    cellLine: line.cellLine,
    position,
    vialsLeft: line.positions.length,
  }));
  return { thawed, missing, medium: input.medium };
}

function audit(ctx: ToolContext, step: AuditEntry['step']): Freezer {
  const freezer = freezerOf(ctx);
  freezer.audit = [...(freezer.audit ?? []), { tool: 'thaw_vials', step, key: ctx.idempotencyKey }];
  return freezer;
}

/**
 * Takes one vial of each line out of the freezer; needs a human's approval first, and asks which
 * box when a line is in several.
 */
export const thawVials = defineTool({
  name: 'thaw_vials',
  description:
    'Thaw one vial of each given cell line into the given medium. Irreversible. Asks the user which box when a line is in several.',
  input: z.object({
    cellLines: z.array(z.string().min(1)).min(1).max(6),
    medium: z.string().min(1),
  }),
  needsApproval: (input) =>
    `Thawing ${input.cellLines.length} vial(s) cannot be undone: they must be used today.`,
  execute: (input, ctx) => {
    const freezer = audit(ctx, 'execute');
    const text = TEXT[freezer.lang ?? 'en'];
    const split = input.cellLines
      .map((cellLine) => find(freezer, cellLine))
      .filter((line): line is FreezerLine => line !== undefined && boxesOf(line).length > 1);
    if (split.length === 0) return thaw(freezer, input);
    const fields = split.map((line) => {
      const boxes = boxesOf(line) as [string, ...string[]];
      const held = boxes.map((box) =>
        text.where(
          box,
          line.positions.filter((p) => boxOf(p) === box),
        ),
      );
      return [line.cellLine, z.enum(boxes).meta({ title: line.cellLine, description: held.join(' · ') })];
    });
    return ctx.ask({ input: { message: text.message, schema: z.object(Object.fromEntries(fields)) } });
  },
  resume: (input, response, ctx) => {
    const freezer = audit(ctx, 'resume');
    if (response.kind !== 'input') throw new Error('thaw_vials asked for boxes and got another answer.');
    return thaw(freezer, input, response.value as Record<string, string>);
  },
});
