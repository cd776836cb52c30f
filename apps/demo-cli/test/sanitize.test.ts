/**
 * Text from a model or a person is drawn as text, never as terminal commands: the sanitizer on its
 * own, the cards, and a piped run whose answer carries a title change and a screen clear.
 */
import { PassThrough } from 'node:stream';
import type { Question } from '@turnkit/core';
import { afterAll, describe, expect, it } from 'vitest';
import { renderApprovalCard, renderQuestionCard } from '../src/render.js';
import { safeLine, safeText } from '../src/sanitize.js';
import { displayWidth } from '../src/text.js';
import { createUi } from '../src/ui.js';
import { cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';

afterAll(cleanup);

/** Sets the window title to "pwned", then clears the screen. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J';
const SHOWN = '␛]0;pwned␇␛[2J';

/** The control characters of `text` (newlines aside), as code points: drawn text should have none. */
function controls(text: string): number[] {
  return [...text]
    .map((char) => char.codePointAt(0)!)
    .filter(
      (code) =>
        (code < 0x20 && code !== 0x0a) ||
        (code >= 0x7f && code <= 0x9f) ||
        (code >= 0x202a && code <= 0x202e) ||
        (code >= 0x2066 && code <= 0x2069),
    );
}

function plainUi() {
  const stream = new PassThrough();
  return createUi({
    lang: 'en',
    out: stream as unknown as NodeJS.WriteStream,
    input: stream as unknown as NodeJS.ReadStream,
    env: {},
  });
}

describe('safeText and safeLine', () => {
  it('show C0 controls and DEL as their control pictures, so an escape sequence is inert text', () => {
    expect(safeText(`title ${HOSTILE} end`)).toBe(`title ${SHOWN} end`);
    expect(safeText('\u0000\u0008\u001b\u007f')).toBe('␀␈␛␡');
  });

  it('show C1 controls (8-bit CSI, OSC) as \\x escapes', () => {
    expect(safeText('a\u009b2Jb\u009d0;x\u009c')).toBe('a\\x9B2Jb\\x9D0;x\\x9C');
  });

  it('drop carriage returns and bidi embedding, override and isolate controls; tabs become spaces', () => {
    expect(safeText('line\r\nnext\rover')).toBe('line\nnextover');
    expect(safeText('abc\u202edcba\u202c \u2066x\u2069')).toBe('abcdcba x');
    expect(safeText('a\tb')).toBe('a b');
  });

  it('keep newlines in safeText, make them spaces in safeLine, and leave other text untouched', () => {
    expect(safeText('one\ntwo')).toBe('one\ntwo');
    expect(safeLine('one\ntwo')).toBe('one two');
    const plain = 'K562 · 细胞系 (Recommended) “quoted” — ✓';
    expect(safeText(plain)).toBe(plain);
  });
});

describe('cards with hostile model text', () => {
  it('draw a question card without a single escape character, and still aligned', () => {
    const question: Question = {
      id: 'q0',
      header: `H${HOSTILE}`,
      question: `Which?${HOSTILE}\u202eevil`,
      options: [
        { label: `A${HOSTILE}`, description: `d${HOSTILE}` },
        { label: 'B', description: '' },
      ],
      multiSelect: false,
    };
    const card = renderQuestionCard(plainUi(), question, { index: 0, total: 1 });
    expect(controls(card)).toEqual([]);
    expect(card).toContain(`Which?${SHOWN}evil`);
    expect(card).toContain(`1. A${SHOWN}`);
    expect(new Set(card.split('\n').map(displayWidth))).toEqual(new Set([76]));
  });

  it('draw an approval card without escape characters from the tool name, reason or input', () => {
    const card = renderApprovalCard(plainUi(), {
      toolName: `rm${HOSTILE}`,
      reason: `because${HOSTILE}`,
      input: { path: `x\u009b2J` },
    });
    expect(controls(card)).toEqual([]);
    expect(card).toContain(`rm${SHOWN}`);
    expect(card).toContain('"path": "x\\x9B2J"');
  });
});

describe('a piped run with hostile text in the answer', () => {
  it('echoes the answer made safe; core refuses it (U+001B) and the model gets only the plain retry', async () => {
    const dir = tempDir();
    const run = await runCli([], { input: `0\nHeLa${HOSTILE}\n1\n0\nHeLa\n1\n`, dir });
    expect(run.code).toBe(0);
    expect(controls(run.stdout)).toEqual([]);
    expect(run.stdout).toContain(`Your answer: HeLa${SHOWN}`);
    expect(run.stdout).toContain('The answer was not accepted:');
    expect(run.stdout).toContain('contains the control character U+001B');
    const messages = await transcript(dir, runIdOf(run.stdout));
    expect(JSON.parse(toolResults(messages, 'AskUserQuestion')[0]!).answers['Cell line']).toBe(
      'Other (custom: HeLa)',
    );
  });
});
