/**
 * A function tool carries the code that runs it (DESIGN §18's size budget; interpreter/tool-code.ts):
 * `defineTool` and `shellAskTool` put it on every tool they make, and a spread copy keeps it. A
 * tool made otherwise is refused by `defineAgent` (CONFIG_INVALID); one that lost its code later is not
 * run: its call (and its `needsApproval` function) is a `tool_error`.
 * Transfer tools carry none: the loop runs their calls itself (handoffs.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { playingAgent } from '../src/handoffs/index.js';
import {
  type AnyAgent,
  type AnyFunctionTool,
  askUserQuestion,
  defineAgent,
  defineTool,
  handoff,
  type QuestionTool,
  runTurn,
  shellAskTool,
} from '../src/index.js';
import { TOOL_CODE } from '../src/keys.js';
import { scriptedModel } from '../src/testing/index.js';
import { errorCode, toolResults } from './helpers.js';

const ran: string[] = [];

const asking = defineTool({
  name: 'relabel',
  description: 'Relabel tubes; asks how',
  input: z.object({}),
  execute: (_input, ctx) => {
    ran.push('execute');
    return ctx.ask(
      { questions: [{ question: 'Which style?', header: 'Style', options: ['Barcode', 'Hand'] }] },
      1,
    );
  },
  resume: (_input, response) => ({ answered: response.kind }),
});

/** `tool` as if made by hand: the same fields, without the code defineTool puts on it. */
function handMade(tool: AnyFunctionTool): AnyFunctionTool {
  const { [TOOL_CODE]: _code, ...fields } = tool as AnyFunctionTool & { [TOOL_CODE]?: unknown };
  return fields;
}

function agentWith(tool: AnyFunctionTool) {
  return defineAgent({
    name: 'lab',
    instructions: 'Lab.',
    model: scriptedModel([{ toolCalls: [{ id: 'c1', name: tool.name, arguments: {} }] }, 'Done.']),
    tools: [tool],
  });
}

describe('the code a function tool carries', () => {
  it('is on every tool defineTool, shellAskTool and askUserQuestion make, and on a handoff() transfer tool', () => {
    expect(Object.hasOwn(asking, TOOL_CODE)).toBe(true);
    expect(Object.hasOwn(shellAskTool({ run: () => 'ok' }), TOOL_CODE)).toBe(true);
    expect(Object.hasOwn(askUserQuestion(), TOOL_CODE)).toBe(true);
    const billing = defineAgent({ name: 'billing', instructions: 'Bill.', model: scriptedModel(['ok']) });
    const desk = defineAgent({
      name: 'desk',
      instructions: 'x',
      model: scriptedModel(['ok']),
      handoffs: [billing],
    });
    const made = defineAgent({
      name: 'made',
      instructions: 'x',
      model: scriptedModel(['ok']),
      handoffs: [handoff(billing, { approval: { assignees: ['ops'] } })],
    });
    const transfer = (agent: AnyAgent) => playingAgent(agent).toolIndex.get('transfer_to_billing')!;
    expect(Object.hasOwn(transfer(desk), TOOL_CODE)).toBe(false);
    expect(Object.hasOwn(transfer(made), TOOL_CODE)).toBe(true);
  });

  it("resolves a question tool's assignees: one made otherwise asks only without them", async () => {
    const { [TOOL_CODE]: _code, ...questions } = askUserQuestion({ assignees: ['ops'] }) as QuestionTool & {
      [TOOL_CODE]?: unknown;
    };
    const agent = (tool: QuestionTool) =>
      defineAgent({
        name: 'lab',
        instructions: 'Lab.',
        model: scriptedModel([
          {
            toolCalls: [
              {
                id: 'q1',
                name: 'AskUserQuestion',
                arguments: { questions: [{ question: 'Go on?', header: 'Go', options: ['Yes', 'No'] }] },
              },
            ],
          },
          'Done.',
        ]),
        tools: [tool],
      });
    const refused = await runTurn(agent(questions), { input: 'ask' });
    expect(errorCode(toolResults(refused).q1)).toBe('tool_error');
    const { assignees: _none, ...open } = questions;
    expect((await runTurn(agent(open), { input: 'ask' })).status).toBe('needs_input');
    const assigned = await runTurn(agent(askUserQuestion({ assignees: ['ops'] })), { input: 'ask' });
    expect(assigned.pendingQuestion).toMatchObject({ kind: 'question', assignees: ['ops'] });
  });

  it('stays on a spread copy, which runs and pauses on its ask', async () => {
    ran.length = 0;
    const copy: AnyFunctionTool = { ...asking, description: 'Relabel, renamed' };
    const paused = await runTurn(agentWith(copy), { input: 'relabel' });
    expect(ran).toEqual(['execute']);
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'question',
      toolName: 'relabel',
      askedByTool: true,
    });
  });

  it('is missing on a tool made otherwise: defineAgent refuses it (CONFIG_INVALID), naming the tool and defineTool', () => {
    for (const tool of [
      asking,
      defineTool({
        name: 'purge',
        description: 'Purge',
        input: z.object({}),
        needsApproval: () => true,
        execute: () => 'purged',
      }),
    ]) {
      let caught: unknown;
      try {
        agentWith(handMade(tool));
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'CONFIG_INVALID' });
      expect((caught as Error).message).toContain(`tool ${tool.name} was not made by defineTool`);
    }
  });

  it('is what runs a tool: one that lost its code after defineAgent is not run, a tool_error, and the turn goes on', async () => {
    ran.length = 0;
    const agent = agentWith(asking);
    // The index a frozen agent keeps, edited behind its back: the loop still refuses to run it.
    (agent.toolIndex as Map<string, unknown>).set(asking.name, handMade(asking));
    const done = await runTurn(agent, { input: 'relabel' });
    expect(ran).toEqual([]);
    expect(done.status).toBe('completed');
    const result = toolResults(done).c1;
    expect(errorCode(result)).toBe('tool_error');
    expect(result).toContain('so the loop cannot run it');
  });
});
