/**
 * Text is text (DESIGN §6): control characters — C0 but tab and newline, DEL, C1 — have no place in
 * a question or an answer. They are binary (seed 003 forbids it), a NUL cuts strings short in C
 * code, and an ESC moves the cursor of every terminal that shows the question or the answer.
 */
import type { AnswerIssue } from '../errors.js';
import { isPlainObject, type Path, reasonOf } from './issues.js';

/** Walking a form value stops after this many findings: one or two are enough to fix it. */
const MAX_FINDINGS = 5;

function isControl(code: number): boolean {
  if (code <= 0x1f) return code !== 0x09 && code !== 0x0a;
  return code >= 0x7f && code <= 0x9f;
}

/** The first control character of `text` written as a code point (`U+0000`), or undefined. */
export function controlCharacterIn(text: string): string | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isControl(code)) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

/** The sentence that explains a control character found in text from outside. */
export function controlCharacterMessage(codePoint: string, subject: string): string {
  return `${subject} contains the control character ${codePoint}; only plain text is accepted (tab and newline are allowed)`;
}

/**
 * Control characters anywhere in a JSON-like value (a form's value): in its strings and its keys,
 * each reported at its path. Values seen twice (a cycle) are walked once.
 */
export function controlCharacterIssues(value: unknown, path: Path): AnswerIssue[] {
  const issues: AnswerIssue[] = [];
  const seen = new Set<object>();
  const walk = (item: unknown, at: Path): void => {
    if (issues.length >= MAX_FINDINGS) return;
    if (typeof item === 'string') {
      const found = controlCharacterIn(item);
      if (found) issues.push({ path: at, message: controlCharacterMessage(found, 'This text') });
      return;
    }
    if (typeof item !== 'object' || item === null || seen.has(item)) return;
    seen.add(item);
    if (Array.isArray(item)) {
      for (let index = 0; index < item.length; index++) walk(item[index], [...at, index]);
      return;
    }
    if (!isPlainObject(item)) return;
    for (const key of Object.keys(item)) {
      const found = controlCharacterIn(key);
      if (found) issues.push({ path: at, message: controlCharacterMessage(found, 'A key') });
      walk(item[key], [...at, key]);
    }
  };
  try {
    walk(value, path);
  } catch (error) {
    // Proxies and throwing getters can fail any read; that too is an answer the caller must fix.
    issues.push({ path, message: `Could not be read (${reasonOf(error)})` });
  }
  return issues;
}
