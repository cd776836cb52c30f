/**
 * The text of a row-layout-2 log (DESIGN §17, §22): each entry's JSON text, joined by `,`. Texts
 * appended by successive writes are joined the same way, and one long text can be cut at the `,`
 * between two entries into chunks a store keeps apart, so that a resume reads the chunk holding the
 * window's start and not a whole import: joined back by `,`, the chunks are the text again.
 */

/**
 * How long a stored chunk of the transcript log may be, in UTF-16 code units (64 Ki: 64 KiB of
 * ASCII text, up to three times that in UTF-8 for text in scripts of three bytes a character),
 * unless one entry alone is longer. A resume reads at most one chunk before the window's start.
 */
export const LOG_CHUNK_CHARS = 65_536;

/** Two log texts as one: joined by `,` unless either is empty. */
export function joinLog(stored: string, added: string): string {
  if (stored === '') return added;
  return added === '' ? stored : `${stored},${added}`;
}

/**
 * Where `text`, the entries of `items` joined by `,`, may be cut into chunks of at most
 * {@link LOG_CHUNK_CHARS}: the offsets of the `,` before each chunk but the first, ascending. None
 * for a text that short, or for one that is not its entries' JSON joined by `,` (an entry whose
 * `toJSON` depends on its key), which is then kept whole. Stringifies each entry again: done only
 * for a text past the bound, an import or a rewrite of a long history.
 */
export function logCuts(items: readonly unknown[], text: string): number[] {
  if (text.length <= LOG_CHUNK_CHARS || items.length < 2) return [];
  const cuts: number[] = [];
  let chunk = 0;
  let at = 0;
  for (const item of items) {
    const length = (JSON.stringify(item) ?? '').length;
    if (at > chunk && at + length - chunk > LOG_CHUNK_CHARS) {
      cuts.push(at - 1);
      chunk = at;
    }
    at += length + 1;
  }
  return at - 1 === text.length ? cuts : [];
}

/** One chunk of an appended log text: its text and where it starts in that text. */
export interface LogChunk {
  /** Where the chunk starts in the appended text (UTF-16 code units): 0, then one past each cut. */
  at: number;
  text: string;
}

/**
 * For store authors: an appended log text cut into the chunks its write allows (`PartsWrite.cuts`),
 * in order; joined by `,` they are `text`. A store that keeps one chunk per piece of appended text
 * (a row, a hash field, a file), each with where it starts in the whole log, then reads from the
 * chunk holding the window's start (DESIGN §22) however large the write was. A cut that is not at a
 * `,`, or not after the one before it, is ignored; without cuts the text is one chunk.
 */
export function logChunks(text: string, cuts: readonly number[] = []): LogChunk[] {
  const chunks: LogChunk[] = [];
  let at = 0;
  for (const cut of cuts) {
    if (!Number.isSafeInteger(cut) || cut <= at || cut >= text.length || text.charCodeAt(cut) !== 44)
      continue;
    chunks.push({ at, text: text.slice(at, cut) });
    at = cut + 1;
  }
  chunks.push({ at, text: text.slice(at) });
  return chunks;
}
