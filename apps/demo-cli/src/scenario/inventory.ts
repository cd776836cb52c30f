/**
 * The LN2 freezer of the demo and its two tools. The freezer lives in the run's `context`, so it is
 * saved in every snapshot: a thaw approved in one process is still recorded when the run is resumed
 * in another.
 */
import { defineTool } from '@turnkit/core';
import { z } from 'zod';
import type { Lang } from '../i18n.js';
import { scenarioText } from './text.js';

/** Vials of one cell line in one box. */
export interface InventoryLine {
  cellLine: string;
  kind: string;
  box: number;
  positions: string[];
}

/** A recorded thaw; `key` is the call's idempotency key, so a call that runs twice records once. */
export interface ThawRecord {
  key: string;
  cellLine: string;
  box: number;
  positions: string[];
  followUps: string[];
  note?: string;
  at: Date;
}

/** The run's application context. */
export interface Freezer {
  lines: InventoryLine[];
  thaws: ThawRecord[];
}

export function initialFreezer(): Freezer {
  return {
    lines: [
      { cellLine: 'K562', kind: 'parental line', box: 3, positions: ['A1', 'A2', 'A3', 'A4'] },
      { cellLine: 'K562-dTAG', kind: 'FKBP12-F36V degron knock-in', box: 3, positions: ['B1', 'B2'] },
      { cellLine: 'K562-RTCB', kind: 'RTCB knockout', box: 4, positions: ['C1', 'C2', 'C3'] },
      { cellLine: 'HeLa', kind: 'cervical carcinoma', box: 1, positions: ['A1', 'A2', 'A3'] },
      { cellLine: 'HEK293T', kind: 'transfection host', box: 2, positions: ['D1', 'D2', 'D3', 'D4', 'D5'] },
    ],
    thaws: [],
  };
}

/** What `query_inventory` returns for one matching line. */
export interface InventoryMatch {
  cellLine: string;
  kind: string;
  box: number;
  vials: number;
  positions: string[];
}

const simplify = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

function findLine(freezer: Freezer, cellLine: string): InventoryLine | undefined {
  return freezer.lines.find((line) => simplify(line.cellLine) === simplify(cellLine));
}

export const queryInventory = defineTool({
  name: 'query_inventory',
  description:
    'Find the vials of a cell line in the LN2 freezer. Matches every line whose name contains the query (case-insensitive), e.g. "K562" also finds "K562-dTAG".',
  input: z.object({ cellLine: z.string().min(1).describe('The cell line name, or part of it') }),
  execute: ({ cellLine }, ctx): { query: string; matches: InventoryMatch[] } => {
    const freezer = ctx.context as Freezer;
    const query = simplify(cellLine);
    const matches = freezer.lines
      .filter((line) => simplify(line.cellLine).includes(query) && line.positions.length > 0)
      .map((line) => ({ ...line, positions: [...line.positions], vials: line.positions.length }));
    return { query: cellLine, matches };
  },
});

const thawInput = z.object({
  cellLine: z.string().min(1).describe('Exact cell line name, as returned by query_inventory'),
  vials: z.number().int().min(1).max(10).describe('How many vials to thaw'),
  followUps: z.array(z.string()).describe('Follow-up tasks to note on the thaw record').optional(),
  note: z.string().describe('Free-text note for the record').optional(),
});

/** `record_thaw` takes vials out of the freezer; a person approves each call (the reason says what moves). */
export function recordThaw(lang: Lang) {
  const text = scenarioText(lang);
  return defineTool({
    name: 'record_thaw',
    description:
      'Record that vials of a cell line were taken out of the freezer and thawed. Needs the user’s approval.',
    input: thawInput,
    needsApproval: ({ cellLine, vials }, ctx) => {
      const line = findLine(ctx.context as Freezer, cellLine);
      // Nothing to approve when the call cannot succeed; execute() explains the problem to the model.
      if (!line || line.positions.length < vials) return false;
      return text.thawReason(
        line.cellLine,
        vials,
        line.box,
        line.positions.slice(0, vials),
        line.positions.length - vials,
      );
    },
    execute: ({ cellLine, vials, followUps = [], note }, ctx) => {
      const freezer = ctx.context as Freezer;
      const done = freezer.thaws.find((thaw) => thaw.key === ctx.idempotencyKey);
      const line = findLine(freezer, cellLine);
      if (!line)
        throw new Error(
          `No cell line named ${JSON.stringify(cellLine)}; query the inventory for exact names.`,
        );
      if (!done && line.positions.length < vials) {
        throw new Error(`Only ${line.positions.length} vial(s) of ${line.cellLine} are left.`);
      }
      const record = done ?? {
        key: ctx.idempotencyKey,
        cellLine: line.cellLine,
        box: line.box,
        positions: line.positions.splice(0, vials),
        followUps,
        ...(note === undefined ? {} : { note }),
        at: new Date(),
      };
      if (!done) freezer.thaws.push(record);
      const { key: _key, at, ...shown } = record;
      return { ok: true, ...shown, left: line.positions.length, at: at.toISOString() };
    },
  });
}
