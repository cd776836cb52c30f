/**
 * A long log text cut into chunks (DESIGN §22, issue 43): `logCuts` finds the `,` between entries
 * where a text past LOG_CHUNK_CHARS may be cut, `logChunks` cuts it for a store, and sessions send
 * the cuts with a write that brings a long history (an import), so that no chunk a store keeps is
 * longer than the bound unless one entry is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChatMessage, createSessions, memoryStore } from '../src/index.js';
import { logCuts } from '../src/snapshot/log-text.js';
import { LOG_CHUNK_CHARS, logChunks } from '../src/store.js';
import { makeAgent, recordingStore } from './helpers.js';

/** The inside of `JSON.stringify(items)`, as a layout-2 log keeps it. */
const logText = (items: readonly unknown[]) => JSON.stringify(items).slice(1, -1);

/** `count` messages of about `chars` characters, with the commas, quotes and braces JSON text has. */
function messages(count: number, chars = 120): ChatMessage[] {
  return Array.from({ length: count }, (_, index): ChatMessage => {
    const content = `Entry ${index}: {"rack":"B${index % 9}"}, "quoted", ${'x'.repeat(chars)}`;
    return index % 2 === 0 ? { role: 'user', content } : { role: 'assistant', content };
  });
}

/** Every chunk's entries, parsed: a chunk is whole entries joined by `,`. */
const entriesOf = (chunks: { text: string }[]) => chunks.flatMap((chunk) => JSON.parse(`[${chunk.text}]`));

describe('logCuts and logChunks', () => {
  it('cuts nothing in a text within the bound', () => {
    const items = messages(10);
    expect(logCuts(items, logText(items))).toEqual([]);
    expect(logChunks(logText(items))).toEqual([{ at: 0, text: logText(items) }]);
  });

  it('cuts a long text at the commas between entries into chunks within the bound, which join back to it', () => {
    const items = messages(3_000);
    const text = logText(items);
    const cuts = logCuts(items, text);
    expect(text.length).toBeGreaterThan(4 * LOG_CHUNK_CHARS);
    expect(cuts.length).toBeGreaterThanOrEqual(4);
    const chunks = logChunks(text, cuts);
    expect(chunks.map((chunk) => chunk.text).join(',')).toBe(text);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(LOG_CHUNK_CHARS);
      expect(text.slice(chunk.at, chunk.at + chunk.text.length)).toBe(chunk.text);
    }
    expect(entriesOf(chunks)).toEqual(items);
  });

  it('keeps an entry longer than the bound whole, in a chunk of its own', () => {
    const items = [...messages(2), ...messages(1, 2 * LOG_CHUNK_CHARS), ...messages(2)];
    const chunks = logChunks(logText(items), logCuts(items, logText(items)));
    expect(chunks.map((chunk) => entriesOf([chunk]).length)).toEqual([2, 1, 2]);
  });

  it('cuts any entries at their boundaries, whatever their text holds (property)', () => {
    const entry = fc.record({
      role: fc.constantFrom('user', 'assistant'),
      content: fc.string({ maxLength: 3_000 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 30, maxLength: 120 }), (items) => {
        const text = logText(items);
        const chunks = logChunks(text, logCuts(items, text));
        expect(chunks.map((chunk) => chunk.text).join(',')).toBe(text);
        expect(entriesOf(chunks)).toEqual(items);
      }),
      { numRuns: 40 },
    );
  });

  it('ignores a cut that is not at a comma or not after the one before', () => {
    expect(logChunks('1,22,333', [3, 1, 1, 4, 99]).map((chunk) => chunk.text)).toEqual(['1', '22', '333']);
  });
});

describe('sessions writing a long history', () => {
  it('sends cuts with the write that brings an imported conversation, and none with short writes', async () => {
    const { store, writes } = recordingStore(memoryStore());
    const sessions = createSessions({ agent: makeAgent(['Noted.', 'Noted again.']), store });
    const history = messages(3_000);
    const { runId } = await sessions.start(history);
    const [claim] = writes;
    expect(claim?.cuts?.length).toBeGreaterThanOrEqual(4);
    const chunks = logChunks(claim!.messages, claim!.cuts);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(LOG_CHUNK_CHARS);
    expect(entriesOf(chunks)).toEqual(history);
    writes.length = 0;
    await sessions.send(runId, 'One more vial.');
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) expect(write.cuts).toBeUndefined();
    expect((await sessions.get(runId, { transcript: 'full' })).messages.slice(0, history.length)).toEqual(
      history,
    );
  });
});
