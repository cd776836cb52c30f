/**
 * Repeated decisions (DESIGN §7): each resolved interaction keeps a small record of its normalised
 * decision, so a request that repeats one already applied (a double click, a retried POST) reads
 * the run instead of failing, and a *different* decision on the same interaction is a conflict.
 */

import type { ResponseInput, Run } from '../interpreter/index.js';
import { pendingInteractions, type ResolvedRecord } from '../machine/index.js';
import { normalizeAnswers, sameAnswers } from '../questions/index.js';

/** Whether `response` repeats a decision already applied: 'same' (idempotent), 'different' (conflict), or null. */
export function repeatOf(run: Run, response: ResponseInput): 'same' | 'different' | null {
  const { resolved } = run.state.context;
  if (response.id !== undefined) {
    const record = resolved.find((item) => item.id === response.id);
    return record ? (sameDecision(record, response) ? 'same' : 'different') : null;
  }
  // Without an id, a response goes to what is pending when something of its kind is; otherwise
  // it can only repeat the latest decision of its kind (a question answered, then an approval asked).
  // Approvals, budgets, calls in doubt and reviews all take approve and reject; a call in doubt takes input.
  const kinds = {
    answer: ['question'],
    input: ['input', 'in_doubt'],
    approve: ['approval', 'budget', 'in_doubt', 'review'],
    reject: ['approval', 'budget', 'in_doubt', 'review'],
    cancel: null,
  }[response.type];
  const fits = (item: { kind: string }) => kinds === null || kinds.includes(item.kind);
  if (pendingInteractions(run.state.context).some(fits)) return null;
  const record = resolved.findLast(fits);
  if (!record) return null;
  return sameDecision(record, response) ? 'same' : 'different';
}

/** JSON text of a value from outside, or undefined when it has none (circular, a bigint…). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function sameDecision(record: ResolvedRecord, response: ResponseInput): boolean {
  switch (response.type) {
    case 'answer': {
      if (record.resolution !== 'answered' || !record.answers) return false;
      try {
        return sameAnswers(record.answers, normalizeAnswers(record.questions ?? [], response.answers));
      } catch {
        return false;
      }
    }
    case 'approve': {
      if (record.resolution !== 'approved') return false;
      // A review's edit (DESIGN §26) is recorded as an approval's edited input is.
      const given = response.edit !== undefined ? response.edit : response.editedInput;
      if (given === undefined) return record.editedInput === undefined;
      const edited = jsonOf(given);
      return edited !== undefined && record.editedInput === edited;
    }
    case 'reject':
      return record.resolution === 'rejected';
    case 'cancel':
      return record.resolution === 'cancelled';
    case 'input': {
      if (record.resolution !== 'answered' || record.value === undefined) return false;
      const given = jsonOf(response.value);
      return given !== undefined && canonical(JSON.parse(record.value)) === canonical(JSON.parse(given));
    }
  }
}

/** JSON text with object keys sorted, so `{a,b}` and `{b,a}` compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
