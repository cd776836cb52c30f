/**
 * The LN2 freezer of the demo and its two tools. The freezer lives in the run's `context`, so it is
 * saved in every snapshot: a thaw approved in one process is still recorded when the run is resumed
 * in another.
 *
 * `record_thaw` is a tool that asks mid-execution (DESIGN §14): when the line sits in several
 * boxes, its `execute` looks them up and returns `ctx.ask({ input })`, a form with one field (which
 * box); the answer runs its `resume`, never `execute` again. The freezer's audit trail records each
 * step, so the tests can prove it.
 */
import { defineTool, type ToolContext } from '@turnkit/core';
import { z } from 'zod';
import type { Lang } from '../i18n.js';
import type { BoxVials, Freezer, InventoryLine, InventoryMatch, ThawRecord } from './freezer.js';
import { type ScenarioText, scenarioText } from './text.js';

const simplify = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

/** Every entry (one per box) of a cell line, by its exact name (case, spaces and dashes aside). */
function linesOf(freezer: Freezer, cellLine: string): InventoryLine[] {
  return freezer.lines.filter((line) => simplify(line.cellLine) === simplify(cellLine));
}

export const queryInventory = defineTool({
  name: 'query_inventory',
  description:
    'Find the vials of a cell line in the LN2 freezer. Matches every line whose name contains the query (case-insensitive), e.g. "K562" also finds "K562-dTAG". A line may be in several boxes.',
  input: z.object({ cellLine: z.string().min(1).describe('The cell line name, or part of it') }),
  execute: ({ cellLine }, ctx): { query: string; matches: InventoryMatch[] } => {
    const freezer = ctx.context as Freezer;
    const query = simplify(cellLine);
    const matches = new Map<string, InventoryMatch>();
    for (const line of freezer.lines) {
      if (!simplify(line.cellLine).includes(query) || line.positions.length === 0) continue;
      const match = matches.get(line.cellLine) ?? {
        cellLine: line.cellLine,
        kind: line.kind,
        vials: 0,
        boxes: [],
      };
      match.vials += line.positions.length;
      match.boxes.push({ box: line.box, positions: [...line.positions] });
      matches.set(line.cellLine, match);
    }
    return { query: cellLine, matches: [...matches.values()] };
  },
});

const thawInput = z.object({
  cellLine: z.string().min(1).describe('Exact cell line name, as returned by query_inventory'),
  vials: z.number().int().min(1).max(10).describe('How many vials to thaw'),
  followUps: z.array(z.string()).describe('Follow-up tasks to note on the thaw record').optional(),
  note: z.string().describe('Free-text note for the record').optional(),
});
type ThawInput = z.infer<typeof thawInput>;

/** What the box form keeps for `resume`: each box and the label it is offered under. */
interface BoxChoice {
  box: number;
  label: string;
}

/** The boxes that hold enough vials for the thaw; an error the model can act on when none does. */
function boxesFor(freezer: Freezer, { cellLine, vials }: ThawInput): InventoryLine[] {
  const lines = linesOf(freezer, cellLine);
  if (lines.length === 0)
    throw new Error(`No cell line named ${JSON.stringify(cellLine)}; query the inventory for exact names.`);
  const enough = lines.filter((line) => line.positions.length >= vials);
  if (enough.length === 0) {
    const left = lines.reduce((sum, line) => sum + line.positions.length, 0);
    throw new Error(`Only ${left} vial(s) of ${lines[0]!.cellLine} are left, and no box holds ${vials}.`);
  }
  return enough;
}

/** Takes the vials out of `line` and records the thaw under the call's idempotency key. */
function take(freezer: Freezer, line: InventoryLine, input: ThawInput, key: string): ThawRecord {
  const record: ThawRecord = {
    key,
    cellLine: line.cellLine,
    box: line.box,
    positions: line.positions.splice(0, input.vials),
    followUps: input.followUps ?? [],
    ...(input.note === undefined ? {} : { note: input.note }),
    at: new Date(),
  };
  freezer.thaws.push(record);
  return record;
}

/** The tool result of a recorded thaw: what was taken, and how many vials of the line are left. */
function shown(freezer: Freezer, record: ThawRecord) {
  const { key: _key, at, ...rest } = record;
  const left = linesOf(freezer, record.cellLine).reduce((sum, line) => sum + line.positions.length, 0);
  return { ok: true, ...rest, left, at: at.toISOString() };
}

function audit(ctx: ToolContext, step: 'execute' | 'resume'): Freezer {
  const freezer = ctx.context as Freezer;
  freezer.audit = [...(freezer.audit ?? []), { tool: 'record_thaw', step, key: ctx.idempotencyKey }];
  return freezer;
}

/** The approval reason: the box and positions, or the boxes to choose from next. */
function reasonFor(text: ScenarioText, freezer: Freezer, input: ThawInput): string | false {
  const lines = linesOf(freezer, input.cellLine);
  const boxes = lines.filter((line) => line.positions.length >= input.vials);
  // Nothing to approve when the call cannot succeed; execute() explains the problem to the model.
  if (boxes.length === 0) return false;
  const left = lines.reduce((sum, line) => sum + line.positions.length, 0) - input.vials;
  const [line] = boxes;
  if (boxes.length > 1) {
    return text.thawReasonBoxes(
      line!.cellLine,
      input.vials,
      boxes.map((box) => box.box),
      left,
    );
  }
  return text.thawReason(line!.cellLine, input.vials, line!.box, line!.positions.slice(0, input.vials), left);
}

/**
 * `record_thaw` takes vials out of the freezer; a person approves each call (the reason says what
 * moves), and, when several boxes hold the line, chooses the box in a form.
 */
export function recordThaw(lang: Lang) {
  const text = scenarioText(lang);
  return defineTool({
    name: 'record_thaw',
    description:
      'Record that vials of a cell line were taken out of the freezer and thawed. Needs the user’s approval; when several boxes hold the line, it asks the user which box.',
    input: thawInput,
    needsApproval: (input, ctx) => reasonFor(text, ctx.context as Freezer, input),
    execute: (input, ctx) => {
      const freezer = ctx.context as Freezer;
      const done = freezer.thaws.find((thaw) => thaw.key === ctx.idempotencyKey);
      if (done) return shown(freezer, done);
      audit(ctx, 'execute');
      const boxes = boxesFor(freezer, input);
      if (boxes.length === 1) return shown(freezer, take(freezer, boxes[0]!, input, ctx.idempotencyKey));
      const held: BoxVials[] = boxes.map(({ box, positions }) => ({ box, positions }));
      const choices: BoxChoice[] = held.map((box) => ({ box: box.box, label: text.boxLabel(box) }));
      const labels = choices.map((choice) => choice.label) as [string, ...string[]];
      const message = text.whichBox(boxes[0]!.cellLine, input.vials, held);
      const schema = z.object({ box: z.enum(labels).meta({ title: text.boxField }) });
      return ctx.ask({ input: { message, schema } }, { choices });
    },
    resume: (input, response, ctx) => {
      const freezer = audit(ctx, 'resume');
      if (response.kind !== 'input') throw new Error('record_thaw asked for a box and got another answer.');
      const { choices } = response.state as { choices: BoxChoice[] };
      const label = (response.value as { box: string }).box;
      const chosen = choices.find((choice) => choice.label === label);
      const line = linesOf(freezer, input.cellLine).find((candidate) => candidate.box === chosen?.box);
      if (!chosen || !line || line.positions.length < input.vials) {
        throw new Error(
          `Box ${chosen?.box ?? label} no longer holds ${input.vials} vial(s) of ${input.cellLine}.`,
        );
      }
      return shown(freezer, take(freezer, line, input, ctx.idempotencyKey));
    },
  });
}
