/**
 * A caller's response copied into plain data before anything reads it (issue 26). An answer may
 * hold a getter that throws, a Proxy whose traps throw, or be a revoked Proxy: read anywhere later
 * (a spread, a schema check, JSON.stringify) it would escape as a plain Error, possibly after part
 * of the run had changed. Reading it all once here turns any such throw into ANSWER_INVALID.
 */
import { AnswerError } from '../errors.js';

/** Stands for any function found in a response: it is never called, and carries no Proxy along. */
const aFunction = (): undefined => undefined;

/**
 * A copy of `value` made of fresh arrays and plain objects (own enumerable string keys, as JSON and
 * spreads read them; a `toJSON` applied first); primitives as they are, so later checks report them as before. A shared or
 * circular reference stays shared or circular in the copy, and is reported where it was before.
 */
function copy(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === 'function') return aFunction;
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  // What JSON.stringify would store (a Date's ISO text), so it is what the checks see too.
  const { toJSON } = value as { toJSON?: unknown };
  if (typeof toJSON === 'function') return copy(toJSON.call(value), seen);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    seen.set(value, items);
    for (let index = 0; index < value.length; index++) items.push(copy(value[index], seen));
    return items;
  }
  const fields: Record<string, unknown> = {};
  seen.set(value, fields);
  for (const key of Object.keys(value)) {
    // A data property even for '__proto__', so no key can change the copy's prototype.
    Object.defineProperty(fields, key, {
      value: copy((value as Record<string, unknown>)[key], seen),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return fields;
}

/**
 * `value` as plain data, or an `AnswerError` (ANSWER_INVALID) naming `subject` when reading any
 * part of it throws. Call it where a response enters the core, before anything else reads it.
 */
export function plainResponse<T>(value: T, subject: string): T {
  try {
    return copy(value, new Map()) as T;
  } catch {
    // What was thrown is not looked at: it may be a hostile object itself.
    throw new AnswerError(
      [
        {
          path: [],
          message: `could not be read (a getter or Proxy threw, or it nests too deep); pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
        },
      ],
      subject,
    );
  }
}
