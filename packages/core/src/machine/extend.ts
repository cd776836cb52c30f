/**
 * Copying an object with some keys added or replaced, on V8's fast path and without ever touching a
 * prototype. On V8 11 (Node 20) an object made by a spread and then given a key its source does not
 * have leaves the fast path: 1.5 µs for one new key, about 9 µs for five, 12 µs for `{ ...a, ...b }`
 * (a tenth of a short resume). `Object.assign` onto a fresh object stays fast, but it *sets* each
 * key, and setting `__proto__` changes the copy's prototype: data read from a snapshot keeps an
 * own `__proto__` key (as JSON.parse makes it), which must stay an ordinary key (DESIGN §4), so such
 * a base is spread.
 */

/** `{ ...base, ...fields }`: the same keys in the same order, made fast. */
export function extend<T extends object, U extends object>(base: T, fields: U): Omit<T, keyof U> & U {
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...base, ...fields };
  return Object.assign({}, base, fields);
}
