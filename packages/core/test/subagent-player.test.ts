/**
 * Sub-agents are carried by their tools (DESIGN §6, §18): `agentTool` and `answerSubagentTool` hold
 * the interpreter's sub-agent player, so a program without agent tools bundles none of it, and a
 * tool that names a child without carrying the player is refused instead of half played.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyFunctionTool,
  agentTool,
  answerQuestion,
  askUserQuestion,
  defineAgent,
  defineTool,
  runTurn,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { bundleInputs } from './bundle-inputs.js';
import { ask, cellLineQuestion, expectOneResultPerCall, toolResults } from './helpers.js';

/** The core source files that put code into a bundle of `entry`. */
async function bundledFiles(entry: string): Promise<string[]> {
  const inputs = await bundleInputs(entry, ['zod', 'superjson', '@noble/*']);
  return inputs.filter(([, bytes]) => bytes > 0).map(([file]) => file.replace(/^(.*\/)?src\//, ''));
}

const child = defineAgent({ name: 'helper', instructions: 'Help.', model: scriptedModel(['done']) });

/** An agent tool's binding without the player `agentTool` puts beside it. */
function handMadeAgentTool(questions: 'bubble' | 'parent'): AnyFunctionTool {
  const { subagents: _player, ...tool } = agentTool(child, { questions });
  return tool as AnyFunctionTool;
}

describe('the sub-agent player', () => {
  it('is not bundled by a program that plays turns without agent tools', async () => {
    const files = await bundledFiles("export { answerQuestion, defineAgent, runTurn } from './index.js';");
    expect(files).toContain('interpreter/step.ts');
    expect(files).not.toContain('interpreter/subagents.ts');
    expect(files).not.toContain('interpreter/agent-tool.ts');
  });

  it('is bundled with agentTool', async () => {
    const files = await bundledFiles("export { agentTool, defineAgent, runTurn } from './index.js';");
    expect(files).toContain('interpreter/subagents.ts');
  });

  it('is carried by agentTool and by the answer_subagent tool defineAgent adds for the parent policy', () => {
    const tool = agentTool(child, { questions: 'parent' });
    expect(tool.subagents).toBeDefined();
    const parent = defineAgent({
      name: 'lead',
      instructions: 'Lead.',
      model: scriptedModel(['ok']),
      tools: [tool],
    });
    const answer = parent.tools.find((entry) => entry.name === 'answer_subagent') as AnyFunctionTool;
    expect(answer.builtin).toBe('answer_subagent');
    expect(answer.subagents).toBe(tool.subagents);
  });

  it('refuses, in defineAgent, a parent-policy binding that carries no player', () => {
    expect(() =>
      defineAgent({
        name: 'lead',
        instructions: 'Lead.',
        model: scriptedModel(['ok']),
        tools: [handMadeAgentTool('parent')],
      }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('refuses, changing nothing, an answer routed to a waiting child whose binding carries no player', async () => {
    const asking = defineAgent({
      name: 'helper',
      instructions: 'Help.',
      model: scriptedModel([{ toolCalls: [ask([cellLineQuestion])] }, 'done']),
      tools: [askUserQuestion()],
    });
    const lead = (tools: AnyFunctionTool[]) =>
      defineAgent({
        name: 'lead',
        instructions: 'Lead.',
        model: scriptedModel([{ toolCalls: [{ name: 'helper', arguments: { input: 'go' } }] }, 'finished']),
        tools,
      });
    const paused = await runTurn(lead([agentTool(asking)]), { input: 'start' });
    expect(paused.pendingQuestion?.agentPath).toEqual(['lead', 'helper']);
    const { subagents: _player, ...bare } = agentTool(asking);
    await expect(
      answerQuestion(lead([bare as AnyFunctionTool]), paused.snapshot, { answers: 'K562-dTAG' }),
    ).rejects.toMatchObject({
      code: 'NOT_WAITING',
      message: expect.stringMatching(/no agent tool "helper" made by agentTool/),
    });
    // The same snapshot still resumes where the tool is back.
    const done = await answerQuestion(lead([agentTool(asking)]), paused.snapshot, { answers: 'K562-dTAG' });
    expect(done.status).toBe('completed');
    expectOneResultPerCall(done);
  });

  it('answers a call of a binding without a player with a tool error, one result for the call', async () => {
    const lead = defineAgent({
      name: 'lead',
      instructions: 'Lead.',
      model: scriptedModel([{ toolCalls: [{ name: 'helper', arguments: { input: 'go' } }] }, 'finished']),
      tools: [
        handMadeAgentTool('bubble'),
        defineTool({ name: 'noop', description: 'Nothing.', input: z.object({}), execute: () => 'ok' }),
      ],
    });
    const result = await runTurn(lead, { input: 'start' });
    expect(result.status).toBe('completed');
    expectOneResultPerCall(result);
    const results = Object.values(toolResults(result));
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0]!)).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(results[0]).toContain('not made by agentTool');
  });
});
