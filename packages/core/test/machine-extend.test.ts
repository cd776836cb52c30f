/**
 * `extend` and the copies the machine makes of a step's calls (DESIGN §4, §16): the same keys in
 * the same order as a spread, and a `__proto__` key read from a snapshot stays an ordinary key —
 * no copy's prototype changes, whatever a snapshot holds.
 */
import { describe, expect, it } from 'vitest';
import { withResolution } from '../src/machine/calls.js';
import { extend } from '../src/machine/extend.js';
import type { StepCall } from '../src/machine/index.js';

/** A step call as JSON.parse reads it from an edited snapshot: `__proto__` is an own key. */
function hostileCall(): StepCall {
  return JSON.parse(
    '{"toolCallId":"call_1","toolName":"thaw","status":"pending","__proto__":{"child":{"value":"waitingInput"}},"interaction":{"id":"inventory:1","kind":"approval","toolCallId":"call_1","toolName":"thaw","agentPath":["inventory"],"createdAt":"2025-01-01T00:00:00.000Z","expiresAt":null,"input":"{}","__proto__":{"quorum":3}}}',
  ) as StepCall;
}

describe('extend', () => {
  it('copies with keys added or replaced, in the order a spread gives them', () => {
    const base = { a: 1, b: 2 };
    const copy = extend(base, { b: 3, c: 4 });
    expect(copy).toEqual({ a: 1, b: 3, c: 4 });
    expect(Object.keys(copy)).toEqual(Object.keys({ ...base, b: 3, c: 4 }));
    expect(base).toEqual({ a: 1, b: 2 });
  });

  it('keeps a __proto__ key read from a snapshot as an own key, and changes no prototype', () => {
    const base = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as object;
    const copy = extend(base, { b: 2 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['a', '__proto__', 'b']);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('withResolution', () => {
  it('approves a call whose snapshot holds __proto__ keys without giving the copy their fields', () => {
    const approved = withResolution(hostileCall(), {
      toolCallId: 'call_1',
      records: [],
      runInput: '{}',
    });
    expect(approved.status).toBe('approved');
    expect(Object.getPrototypeOf(approved)).toBe(Object.prototype);
    expect(approved.child).toBeUndefined();
  });

  it('adds an approval to a quorum without giving the interaction the fields of its __proto__ key', () => {
    const counted = withResolution(hostileCall(), {
      toolCallId: 'call_1',
      records: [],
      approval: { principal: 'ops', at: '2025-01-01T00:00:00.000Z' },
    });
    expect(Object.getPrototypeOf(counted.interaction)).toBe(Object.prototype);
    expect(counted.interaction?.quorum).toBeUndefined();
    expect(counted.interaction?.approvals).toEqual([{ principal: 'ops', at: '2025-01-01T00:00:00.000Z' }]);
  });
});
