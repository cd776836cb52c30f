/**
 * The application `context` in a snapshot: serialized with superjson (Dates, Maps, bigints survive),
 * refused up front when superjson would silently lose part of it.
 */
import SuperJSON, { type SuperJSONResult } from 'superjson';
import { TurnkitError } from './errors.js';
import { invalidSnapshot } from './snapshot.js';

const BUILT_IN = [Date, RegExp, Map, Set, Error, URL] as const;
const HOSTILE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Throws `CONTEXT_UNSERIALIZABLE` unless `value` survives a superjson round trip: superjson
 * silently drops functions and turns unregistered class instances into plain objects.
 */
export function assertSerializable(
  value: unknown,
  serializer: SuperJSON | undefined,
  path = 'context',
): void {
  const fail = (what: string) => {
    throw new TurnkitError(
      'CONTEXT_UNSERIALIZABLE',
      `${path} holds ${what}, which a snapshot cannot keep. Keep only data in the run context (objects, arrays, Dates, Maps, Sets, bigints…), or register the class with superjson.`,
    );
  };
  const seen = new Set<object>();
  const visit = (current: unknown, at: string): void => {
    path = at;
    if (typeof current === 'function') fail('a function');
    if (typeof current === 'symbol') fail('a symbol');
    if (typeof current !== 'object' || current === null || seen.has(current)) return;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) visit(current[index], `${at}[${index}]`);
      return;
    }
    if (current instanceof Map) {
      for (const [key, item] of current) {
        visit(key, `${at}<key>`);
        visit(item, `${at}.get(${String(key)})`);
      }
      return;
    }
    if (current instanceof Set) {
      for (const item of current) visit(item, `${at}<item>`);
      return;
    }
    if (BUILT_IN.some((type) => current instanceof type)) return;
    for (const key of Object.keys(current)) {
      if (HOSTILE_KEYS.has(key))
        fail(`a key named ${JSON.stringify(key)} (superjson refuses it as a prototype-pollution risk)`);
    }
    const prototype = Object.getPrototypeOf(current);
    if (prototype !== Object.prototype && prototype !== null) {
      const registry = serializer ?? (SuperJSON as unknown as { defaultInstance: SuperJSON }).defaultInstance;
      if (registry.classRegistry.getIdentifier(prototype.constructor) !== undefined) return;
      if (registry.customTransformerRegistry.findApplicable(current)) return;
      fail(
        `an instance of ${prototype.constructor?.name ?? 'an unknown class'} that superjson does not know`,
      );
    }
    for (const key of Object.keys(current)) visit((current as Record<string, unknown>)[key], `${at}.${key}`);
  };
  visit(value, path);
}

/** Serializes the application context with superjson (null for none). */
export function serializeContext(value: unknown, serializer: SuperJSON | undefined): SuperJSONResult | null {
  if (value === undefined) return null;
  assertSerializable(value, serializer);
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

/** superjson refuses these keys when writing, so a snapshot that holds them was not written by TurnKit. */
function hasHostileKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasHostileKey);
  return Object.keys(value).some(
    (key) => HOSTILE_KEYS.has(key) || hasHostileKey((value as Record<string, unknown>)[key]),
  );
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
