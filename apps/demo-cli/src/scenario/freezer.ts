/**
 * The LN2 freezer of the demo: its data and what a query returns. It lives in the run's `context`,
 * so it is saved in every snapshot. A cell line may sit in several boxes (one entry per box):
 * `record_thaw` then asks which box to take the vials from.
 */

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

/**
 * One step of a tool, as the freezer's audit trail keeps it: a tool that asks mid-execution shows
 * one `execute` and one `resume` per call, however many processes the run went through.
 */
export interface AuditEntry {
  tool: string;
  step: 'execute' | 'resume';
  /** The call's idempotency key (`<runId>:<toolCallId>`). */
  key: string;
}

/** The run's application context. */
export interface Freezer {
  lines: InventoryLine[];
  thaws: ThawRecord[];
  /** Absent in runs saved before the audit trail existed. */
  audit?: AuditEntry[];
}

export function initialFreezer(): Freezer {
  return {
    lines: [
      { cellLine: 'K562', kind: 'parental line', box: 3, positions: ['A1', 'A2', 'A3', 'A4'] },
      { cellLine: 'K562-dTAG', kind: 'FKBP12-F36V degron knock-in', box: 3, positions: ['B1', 'B2'] },
      { cellLine: 'K562-RTCB', kind: 'RTCB knockout', box: 4, positions: ['C1', 'C2', 'C3'] },
      { cellLine: 'HeLa', kind: 'cervical carcinoma', box: 1, positions: ['A1', 'A2', 'A3'] },
      { cellLine: 'HEK293T', kind: 'transfection host', box: 2, positions: ['D1', 'D2', 'D3'] },
      { cellLine: 'HEK293T', kind: 'transfection host', box: 6, positions: ['A1', 'A2'] },
    ],
    thaws: [],
    audit: [],
  };
}

/** One box holding vials of a line. */
export interface BoxVials {
  box: number;
  positions: string[];
}

/** What `query_inventory` returns for one matching line: its vials in every box that holds some. */
export interface InventoryMatch {
  cellLine: string;
  kind: string;
  vials: number;
  boxes: BoxVials[];
}
