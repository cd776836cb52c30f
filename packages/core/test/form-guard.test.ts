/**
 * A form's schema can never make checking a value super-linear (issue 26 item 7): a pattern that
 * repeats a repeating group, a backreference or a lookaround, or a schema too deep or too large, is
 * refused when a tool asks with it (a tool_error, no pause), and again when a value would be checked
 * against a stored one (a snapshot edited by its holder) — before any regex runs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, provideInput, runTurn } from '../src/index.js';
import { unsafeFormSchema, unsafePattern } from '../src/interpreter/form-guard.js';
import { makeAgent, toolResults } from './helpers.js';

const HOSTILE = '^(a+)+$';
/** The value that froze a handler for 42 s: 30 `a` and one character that fails the match. */
const FREEZING_VALUE = `${'a'.repeat(30)}!`;

function formAgent(pattern: string) {
  const jsonSchema = { type: 'object', properties: { v: { type: 'string', pattern } }, required: ['v'] };
  const fill = defineTool({
    name: 'fill',
    description: 'asks with a form from a server',
    input: z.object({}),
    execute: (_input, ctx) => ctx.ask({ input: { message: 'Fill it', jsonSchema } }),
    resume: (_input, response) => (response as { value: unknown }).value,
  });
  return makeAgent([{ toolCalls: [{ id: 'call_fill', name: 'fill', arguments: {} }] }, 'ok'], {
    tools: [fill],
  });
}

/** Counts the tests of regexes whose source is `source`. */
function countRegexRuns(source: string) {
  let runs = 0;
  const exec = RegExp.prototype.exec;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === source) runs++;
    return exec.call(this, text);
  });
  const test = RegExp.prototype.test;
  vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === source) runs++;
    return test.call(this, text);
  });
  return () => runs;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('form schemas', () => {
  it.each([
    ['^(a+)+$'],
    ['^(a*)*b'],
    ['^(a|aa)+$'],
    ['^((ab)*c)+$'],
    ['(x{2,})+'],
    ['^(a)\\1$'],
    ['^(?=a)a$'],
    ['^(?<!b)a$'],
    ['a'.repeat(600)],
  ])('refuses the pattern %s', (pattern) => {
    expect(unsafePattern(pattern)).not.toBeNull();
  });

  it.each([['^[a-z]+$'], ['^\\d{3}-\\d{4}$'], ['^(ab)+$'], ['^(a+)?$'], ['^[(a+)+]*$'], ['^(a|b){1}$']])(
    'accepts the pattern %s',
    (pattern) => {
      expect(unsafePattern(pattern)).toBeNull();
    },
  );

  it('refuses a schema nested too deep or too large', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level++) deep = { type: 'object', properties: { x: deep } };
    expect(unsafeFormSchema(deep)).toMatch(/deeper/);
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, 1])),
    };
    expect(unsafeFormSchema(wide)).toMatch(/nodes/);
  });

  it('refuses a form whose schema has a pattern that repeats a repeating group: a tool_error, no pause', async () => {
    const result = await runTurn(formAgent(HOSTILE), { input: 'go' });
    expect(result.status).toBe('completed');
    expect(JSON.parse(toolResults(result).call_fill!)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResults(result).call_fill).toContain('repeats a group');
  });

  it('refuses the 31-character value against a stored schema edited to (a+)+ with ANSWER_INVALID, before the regex runs', async () => {
    const paused = await runTurn(formAgent('^a+$'), { input: 'go' });
    expect(paused.status).toBe('needs_input');
    const edited = paused.snapshot.replace(JSON.stringify('^a+$'), JSON.stringify(HOSTILE));
    expect(edited).not.toBe(paused.snapshot);
    const runs = countRegexRuns(HOSTILE);
    const error = await provideInput(formAgent('^a+$'), edited, { value: { v: FREEZING_VALUE } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'ANSWER_INVALID' });
    expect(runs()).toBe(0);
  });
});
