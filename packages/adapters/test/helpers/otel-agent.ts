/**
 * The agent of the `otelTelemetry` tests and their child process: on an `aiSdkModel` over a mock
 * v3 model (so chat spans carry a provider, a model id and usage), it looks a cell line up, asks
 * which one was meant, then answers with what it was told.
 */
import { type Agent, askUserQuestion, defineAgent, defineTool, type Telemetry } from '@turnkit/core';
import { z } from 'zod';
import { aiSdkModel } from '../../src/models/ai-sdk/model.js';
import { mockModel } from './ai-sdk-mock.js';

const question = JSON.stringify({
  questions: [{ question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] }],
});

/** A tool that counts vials; it throws for an unknown line, so tests can see a failed tool span. */
export const queryInventory = defineTool({
  name: 'query_inventory',
  description: 'Count the vials of a cell line.',
  input: z.object({ cellLine: z.string() }),
  execute: async ({ cellLine }) => {
    if (cellLine === 'unknown') throw new Error('no such line');
    return { cellLine, vials: 3 };
  },
});

/** query_inventory → AskUserQuestion (pauses) → text with the answer. */
export function tracedAgent(telemetry?: Telemetry, cellLine = 'K562'): Agent {
  return defineAgent({
    name: 'inventory',
    instructions: 'You are an LN2 inventory assistant.',
    model: aiSdkModel(
      mockModel([
        { calls: [{ id: 'call_query', name: 'query_inventory', input: JSON.stringify({ cellLine }) }] },
        { calls: [{ id: 'call_ask', name: 'AskUserQuestion', input: question }] },
        (options) => {
          const last = options.prompt.at(-1);
          const part = last?.role === 'tool' ? last.content[0] : undefined;
          return {
            text: [
              `Done: ${part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '?'}`,
            ],
          };
        },
      ]),
    ),
    tools: [queryInventory, askUserQuestion()],
    ...(telemetry ? { telemetry } : {}),
  });
}
