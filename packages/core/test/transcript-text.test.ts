/**
 * The next snapshot reuses the JSON text of the transcript it was loaded with (DESIGN §16): the
 * text it writes must be exactly what `JSON.stringify` would write, whatever the messages hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerQuestion, type ChatMessage, parseSnapshot, runTurn } from '../src/index.js';
import { ask, cellLineQuestion, makeAgent } from './helpers.js';

/** Text that looks like the markers the reuse searches for, and other JSON-hostile content. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '],"step":',
    '"messages":[',
    '"messages":[]',
    '\\"],"step":\\"',
    '\u2028\u2029',
    '\ud800',
    '{"step":1}',
  ),
);

const message = fc.oneof(
  hostile.map((content): ChatMessage => ({ role: 'user', content })),
  hostile.map((content): ChatMessage => ({ role: 'assistant', content })),
);

describe('the transcript written once', () => {
  it('writes, after a resume, exactly the text JSON.stringify would (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 8 }), hostile, async (history, userText) => {
        const turns = history.filter((item) => item.role === 'assistant').length;
        const agent = makeAgent([
          ...Array.from({ length: turns }, () => 'never'),
          { toolCalls: [ask([cellLineQuestion])] },
          `done: ${userText}`,
        ]);
        const paused = await runTurn(agent, { input: [...history, { role: 'user', content: userText }] });
        expect(paused.status).toBe('needs_input');
        const done = await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' });
        expect(done.status).toBe('completed');
        expect(done.snapshot).toBe(JSON.stringify(JSON.parse(done.snapshot)));
        expect(parseSnapshot(done.snapshot).state.context.messages).toEqual(done.messages);
        // And once more from that snapshot (a transcript reused twice).
        const next = await runTurn(
          makeAgent([...Array.from({ length: turns + 2 }, () => 'never'), 'again']),
          {
            snapshot: done.snapshot,
            input: 'more',
          },
        );
        expect(next.snapshot).toBe(JSON.stringify(JSON.parse(next.snapshot)));
        expect(parseSnapshot(next.snapshot).state.context.messages).toEqual(next.messages);
      }),
      { numRuns: 200 },
    );
  });
});
