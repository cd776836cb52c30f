/**
 * Reading values that come from outside (HTTP bodies, parent models) without trusting them, and
 * collecting what is wrong with them as {@link AnswerIssue}s with paths.
 */
import type { AnswerIssue } from '../errors.js';

/** Junk input can produce thousands of issues; past this many, one line says how many were left out. */
const MAX_ISSUES = 20;

/** Where a value sits in the answers, e.g. `['answers', 'Auth method', 'selected', 1]`. */
export type Path = (string | number)[];

/** Issues found so far, capped so junk input cannot produce thousands. */
export class IssueList {
  readonly items: AnswerIssue[] = [];
  private omitted = 0;

  add(path: Path, message: string): void {
    if (this.items.length < MAX_ISSUES) this.items.push({ path, message });
    else this.omitted++;
  }

  get count(): number {
    return this.items.length + this.omitted;
  }

  all(): AnswerIssue[] {
    if (this.omitted === 0) return this.items;
    return [...this.items, { path: ['answers'], message: `…and ${this.omitted} more problems` }];
  }
}

/** A short quoted form of a text, for messages. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** What a value is, for messages: `a string`, `an array`, `null`… */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'undefined' ? 'undefined' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** Plain objects only: a Map, a Date or a class instance is a caller's mistake, not an answer. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** An own field, or undefined: inherited (possibly polluted) properties never count. */
export function field(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/** Even the thrown value may be hostile (a throwing `message` getter), so reading it is guarded too. */
export function reasonOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : describe(error);
  } catch {
    return 'reading it threw';
  }
}
