/**
 * The agent of the cross-process SSE test (DESIGN §17): it asks which cell lines (a question),
 * asks to thaw them (an approval), reports, and then answers each further message — `big <n>` with
 * a text of n characters, so a test can publish as many bytes as it needs. The model is stateless,
 * so any handler process playing this agent goes on where another stopped.
 */
import { type Agent, askUserQuestion, defineAgent, defineTool, type ModelRequest } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';
import { cellLineQuestion } from '../http-fixtures.js';

/** How many messages after the first three steps the script answers. */
const MORE_MESSAGES = 200;

/** The answer to a further message: `big <n>` gets n characters, anything else a short note. */
function reply(request: ModelRequest): string {
  const said = String(request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
  const big = /^big (\d+)$/.exec(said);
  return big ? 'x'.repeat(Number(big[1])) : `Noted: ${said}.`;
}

/** The relay agent: question → approval → report, then one reply per message. */
export function relayAgent(): Agent {
  const thawVials = defineTool({
    name: 'thaw_vials',
    description: 'Thaw vials of the given cell lines.',
    input: z.object({ cellLines: z.array(z.string()) }),
    needsApproval: () => 'Thawing cannot be undone.',
    execute: (input) => ({ thawed: input.cellLines }),
  });
  return defineAgent({
    name: 'relay',
    instructions: 'You manage an LN2 freezer.',
    model: scriptedModel([
      {
        text: 'Which lines?',
        toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [cellLineQuestion] } }],
      },
      {
        text: 'Thawing once you approve.',
        toolCalls: [{ name: 'thaw_vials', arguments: { cellLines: ['K562'] } }],
      },
      'Thawed K562.',
      ...Array.from({ length: MORE_MESSAGES }, () => reply),
    ]),
    tools: [thawVials, askUserQuestion()],
  });
}
