/**
 * The lab assistant of the A2A tool tests: it hands a thaw to the remote freezer agent through
 * `a2aAgentTool` (call id `call_freezer`), then reports the tool's result. Shared by the tests and
 * the worker process that is killed after sending the message.
 */
import { defineAgent } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { type A2aAgentToolOptions, a2aAgentTool } from '../../src/protocols/a2a/index.js';

/** The remote's URL or card, and any other options of the tool. */
export type FreezerTool = Partial<A2aAgentToolOptions> &
  ({ url: string } | { card: NonNullable<A2aAgentToolOptions['card']> });

export const FREEZER_CALL = 'call_freezer';

/** An assistant that calls the `freezer` tool once, then says what it answered. */
export function assistant(tool: FreezerTool) {
  const lastResult = (messages: { role: string; content: unknown }[]) =>
    messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';
  return defineAgent({
    name: 'assistant',
    instructions: 'You help in the lab.',
    model: scriptedModel([
      { toolCalls: [{ id: FREEZER_CALL, name: 'freezer', arguments: { message: 'Thaw one K562 vial' } }] },
      (request) => `Done: ${lastResult(request.messages)}`,
      (request) => `Done: ${lastResult(request.messages)}`,
    ]),
    tools: [a2aAgentTool({ name: 'freezer', description: 'Thaws vials.', ...tool } as A2aAgentToolOptions)],
  });
}
