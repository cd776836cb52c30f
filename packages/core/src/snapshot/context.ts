/**
 * The application `context` in a snapshot: serialized with superjson (Dates, Maps, bigints survive),
 * refused when superjson would lose part of it or silently change it (DESIGN §12): functions,
 * symbols, unregistered class instances, symbol keys, holes in arrays, an Error's extra fields,
 * invalid Dates, non-enumerable or accessor properties, prototype-polluting keys, absurd depth.
 */
import SuperJSON, { type SuperJSONResult } from 'superjson';
import { TurnkitError } from '../errors.js';
import { invalidSnapshot } from './envelope.js';

const BUILT_IN = [RegExp, URL] as const;
const HOSTILE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper than this is a bug (or an attack) rather than application state; it would also overflow the stack. */
const MAX_DEPTH = 1000;
/** What superjson keeps of an Error: its name and message (the stack is not data). */
const ERROR_FIELDS = new Set(['name', 'message', 'stack']);

function registryOf(serializer: SuperJSON | undefined): SuperJSON {
  return serializer ?? (SuperJSON as unknown as { defaultInstance: SuperJSON }).defaultInstance;
}

/** The own property names superjson would not carry over unchanged, as a reason, or null. */
function propertyProblem(value: object): string | null {
  if (Object.getOwnPropertySymbols(value).length > 0) return 'a symbol key';
  for (const name of Object.getOwnPropertyNames(value)) {
    if (Array.isArray(value) && name === 'length') continue;
    const descriptor = Object.getOwnPropertyDescriptor(value, name)!;
    if (!descriptor.enumerable) return `a non-enumerable property ${JSON.stringify(name)}`;
    if (descriptor.get || descriptor.set) return `an accessor (getter/setter) ${JSON.stringify(name)}`;
    if (HOSTILE_KEYS.has(name)) {
      return `a key named ${JSON.stringify(name)} (superjson refuses it as a prototype-pollution risk)`;
    }
  }
  return null;
}

/**
 * Why `value` would not survive a superjson round trip unchanged, as `<path> holds <what>`, or
 * null when it would. Iterative, so a deep value cannot overflow the stack.
 */
export function contextProblem(
  value: unknown,
  serializer: SuperJSON | undefined,
  root = 'context',
): string | null {
  const seen = new Set<object>();
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    const holds = (what: string) => `${path} holds ${what}`;
    if (typeof current === 'function') return holds('a function');
    if (typeof current === 'symbol') return holds('a symbol');
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    if (depth > MAX_DEPTH) return holds(`values nested more than ${MAX_DEPTH} levels deep`);
    seen.add(current);
    const push = (item: unknown, at: string) => stack.push({ value: item, path: at, depth: depth + 1 });
    if (current instanceof Date) {
      if (Number.isNaN(current.getTime())) return holds('an invalid Date (it would come back as null)');
      continue;
    }
    if (current instanceof Error) {
      const extra = Object.getOwnPropertyNames(current).find((name) => !ERROR_FIELDS.has(name));
      if (extra !== undefined)
        return holds(`an Error with a field ${JSON.stringify(extra)} that superjson drops`);
      continue;
    }
    if (current instanceof Map) {
      for (const [key, item] of current) {
        push(key, `${path}<key>`);
        push(item, `${path}.get(${String(key)})`);
      }
      continue;
    }
    if (current instanceof Set) {
      for (const item of current) push(item, `${path}<item>`);
      continue;
    }
    if (BUILT_IN.some((type) => current instanceof type)) continue;
    const prototype = Object.getPrototypeOf(current);
    if (!Array.isArray(current) && prototype !== Object.prototype && prototype !== null) {
      const registry = registryOf(serializer);
      if (registry.classRegistry.getIdentifier(prototype.constructor) !== undefined) continue;
      if (registry.customTransformerRegistry.findApplicable(current)) continue;
      return holds(
        `an instance of ${prototype.constructor?.name ?? 'an unknown class'} that superjson does not know`,
      );
    }
    const problem = propertyProblem(current);
    if (problem) return holds(problem);
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        if (!Object.hasOwn(current, index))
          return holds(`an array with a hole at [${index}] (it would come back as null)`);
        push(current[index], `${path}[${index}]`);
      }
      continue;
    }
    for (const key of Object.keys(current)) push((current as Record<string, unknown>)[key], `${path}.${key}`);
  }
  return null;
}

/**
 * Throws `CONTEXT_UNSERIALIZABLE` unless `value` survives a superjson round trip unchanged
 * (see {@link contextProblem}).
 */
export function assertSerializable(
  value: unknown,
  serializer: SuperJSON | undefined,
  path = 'context',
): void {
  const problem = contextProblem(value, serializer, path);
  if (problem) {
    throw new TurnkitError(
      'CONTEXT_UNSERIALIZABLE',
      `${problem}, which a snapshot cannot keep as it is. Keep only data in the run context (plain objects, arrays, Dates, Maps, Sets, bigints…), or register the class with superjson.`,
    );
  }
}

/** Serializes a context already known to be serializable (no check). */
export function serializeChecked(value: unknown, serializer: SuperJSON | undefined): SuperJSONResult | null {
  if (value === undefined) return null;
  try {
    return serializer ? serializer.serialize(value as never) : SuperJSON.serialize(value as never);
  } catch (error) {
    throw new TurnkitError(
      'CONTEXT_UNSERIALIZABLE',
      `superjson cannot serialize the run context: ${(error as Error).message}. Keep only plain data in it.`,
      { cause: error },
    );
  }
}

/** Serializes the application context with superjson (null for none), after checking it. */
export function serializeContext(value: unknown, serializer: SuperJSON | undefined): SuperJSONResult | null {
  if (value === undefined) return null;
  assertSerializable(value, serializer);
  return serializeChecked(value, serializer);
}

/** superjson refuses these keys when writing, so a snapshot that holds them was not written by TurnKit. */
function hasHostileKey(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (HOSTILE_KEYS.has(key)) return true;
      stack.push((current as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** Restores the application context. */
export function deserializeContext(
  value: SuperJSONResult | null,
  serializer: SuperJSON | undefined,
): unknown {
  if (value === null) return undefined;
  if (hasHostileKey(value.json))
    throw invalidSnapshot('its context holds a __proto__, constructor or prototype key');
  try {
    return serializer ? serializer.deserialize(value) : SuperJSON.deserialize(value);
  } catch (error) {
    throw invalidSnapshot('its context cannot be deserialized', error);
  }
}
