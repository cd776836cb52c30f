/** The one check of the adapters' numeric options: whole numbers, positive (or zero where allowed). */
import { TurnkitError } from '@turnkit/core';

/**
 * Throws `CONFIG_INVALID`, naming `where` and `name`, unless `value` is a positive safe integer
 * (or absent, or 0 when `zero`).
 */
export function checkCount(value: number | undefined, name: string, where: string, zero = false): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < (zero ? 0 : 1)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: ${name} must be a ${zero ? 'non-negative' : 'positive'} integer, got ${String(value)}.`,
    );
  }
}

/** `value` once {@link checkCount} accepted it, else `fallback`. */
export function countOr(
  value: number | undefined,
  fallback: number,
  name: string,
  where: string,
  zero = false,
): number {
  checkCount(value, name, where, zero);
  return value ?? fallback;
}
