/**
 * A function tool carries the machinery of its own asks (DESIGN §14, §18's size budget):
 * `defineTool` and `shellAskTool` put it on every tool they make, a spread copy keeps it, and a
 * tool made otherwise that returns a `ctx.ask` gets a `tool_error` result instead of a pause.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyFunctionTool, defineAgent, defineTool, runTurn, shellAskTool } from '../src/index.js';
import { ASKS } from '../src/keys.js';
import { scriptedModel } from '../src/testing/index.js';
import { errorCode, toolResults } from './helpers.js';

const asking = defineTool({
  name: 'relabel',
  description: 'Relabel tubes; asks how',
  input: z.object({}),
  execute: (_input, ctx) =>
    ctx.ask({ questions: [{ question: 'Which style?', header: 'Style', options: ['Barcode', 'Hand'] }] }, 1),
  resume: (_input, response) => ({ answered: response.kind }),
});

function agentWith(tool: AnyFunctionTool) {
  return defineAgent({
    name: 'lab',
    instructions: 'Lab.',
    model: scriptedModel([{ toolCalls: [{ id: 'c1', name: tool.name, arguments: {} }] }, 'Done.']),
    tools: [tool],
  });
}

describe('the ask machinery a function tool carries', () => {
  it('is on every tool defineTool and shellAskTool make', () => {
    expect(Object.hasOwn(asking, ASKS)).toBe(true);
    expect(Object.hasOwn(shellAskTool({ run: () => 'ok' }), ASKS)).toBe(true);
  });

  it('stays on a spread copy, which pauses on its ask', async () => {
    const copy = { ...asking, description: 'Relabel, renamed' } as AnyFunctionTool;
    const paused = await runTurn(agentWith(copy), { input: 'relabel' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'question',
      toolName: 'relabel',
      askedByTool: true,
    });
  });

  it('is missing on a tool made otherwise: its ask is a tool_error, and the turn goes on', async () => {
    const { [ASKS]: _machinery, ...handMade } = asking as AnyFunctionTool & { [ASKS]?: unknown };
    const done = await runTurn(agentWith(handMade as AnyFunctionTool), { input: 'relabel' });
    expect(done.status).toBe('completed');
    const result = toolResults(done).c1;
    expect(errorCode(result)).toBe('tool_error');
    expect(result).toContain('only a tool made by defineTool can ask');
  });
});
