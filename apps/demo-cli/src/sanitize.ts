/**
 * Text from a model or a person, made safe to draw on a terminal. Such text is data, never
 * commands: drawn raw, a question holding `ESC ] 0 ; … BEL` would set the window title,
 * `ESC [ 2 J` would clear the screen, and a bidi override would reorder what the reader sees.
 * Every control character is replaced by a visible stand-in (a C0 control by its Unicode control
 * picture, so ESC shows as `␛`; a C1 control as `\x9B`), which leaves an escape sequence as inert,
 * readable text and hides nothing; a carriage return is dropped and a tab becomes a space; bidi
 * embedding, override and isolate controls are removed. The CLI's own colours and cursor codes are
 * added after this, around text already made safe.
 */

const NEWLINE = 0x0a;
const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;
const DELETE = 0x7f;

/** U+202A–U+202E (embeddings, overrides) and U+2066–U+2069 (isolates). */
function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** What a control character is drawn as, or undefined for any other character. */
function standIn(code: number): string | undefined {
  if (code === TAB) return ' ';
  if (code === CARRIAGE_RETURN) return '';
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === DELETE) return '\u2421';
  if (code >= 0x80 && code <= 0x9f) return `\\x${code.toString(16).toUpperCase()}`;
  if (isBidiControl(code)) return '';
  return undefined;
}

/** `text` safe to draw, its line breaks kept: for question texts, descriptions, streamed replies. */
export function safeText(text: string): string {
  let out = '';
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) continue;
    const replacement = standIn(code);
    if (replacement === undefined) continue;
    out += text.slice(start, index) + replacement;
    start = index + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/** `text` safe to draw on one line (line breaks become spaces): for headers, labels, summaries. */
export function safeLine(text: string): string {
  return safeText(text).replaceAll('\n', ' ');
}
