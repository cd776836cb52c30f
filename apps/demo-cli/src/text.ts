/**
 * Terminal text measurement: how many columns a string takes (CJK characters take two, colour codes
 * none), and wrapping/padding by columns, so cards line up in English and in Chinese alike.
 */
import { stripVTControlCharacters } from 'node:util';

/** East Asian wide and fullwidth ranges (Unicode 15), plus emoji, which terminals draw two columns wide. */
const WIDE_RANGES: [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

function charWidth(codePoint: number): number {
  // Combining marks and zero-width characters take no column of their own.
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || codePoint === 0x200b || codePoint === 0xfe0f) return 0;
  if (codePoint < 0x1100) return 1;
  return WIDE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high) ? 2 : 1;
}

/** Columns `text` occupies on a terminal. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of stripVTControlCharacters(text)) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** `text` padded with spaces to `width` columns (never cut). */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` cut to `width` columns, with `…` when something was cut. Plain text only (no colour codes). */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charWidth(char.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/**
 * Wraps plain text to `width` columns: at spaces where there are any, anywhere between wide (CJK)
 * characters, and mid-word only when a word is longer than a line. Existing newlines are kept.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let used = 0;
    let lastSpace = -1;
    for (const char of paragraph) {
      const w = charWidth(char.codePointAt(0)!);
      if (used + w > width && line !== '') {
        if (char === ' ') {
          lines.push(line.trimEnd());
          line = '';
          used = 0;
          lastSpace = -1;
          continue;
        }
        if (lastSpace > 0) {
          lines.push(line.slice(0, lastSpace).trimEnd());
          line = line.slice(lastSpace + 1);
        } else {
          lines.push(line);
          line = '';
        }
        used = displayWidth(line);
        lastSpace = -1;
      }
      if (char === ' ') lastSpace = line.length;
      line += char;
      used += w;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
