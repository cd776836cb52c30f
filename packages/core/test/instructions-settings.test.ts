/**
 * Dynamic instructions and model settings (DESIGN §23): `instructions` as a function of the run's
 * context, made before each model call (sub-agents too), and `modelSettings` on the agent and per
 * call reaching the adapter as `request.settings`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  defineAgent,
  defineTool,
  type InstructionsContext,
  type ModelRequest,
  runTurn,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

/** A scripted step that records the request it answers. */
const recording = (requests: ModelRequest[], text: string) => (request: ModelRequest) => {
  requests.push(request);
  return text;
};

const systemOf = (request: ModelRequest) => request.messages[0]?.content;

describe('instructions as a function', () => {
  it("is made before each model call from the run's context as the tools left it", async () => {
    const requests: ModelRequest[] = [];
    const calls: InstructionsContext<{ vials: number }>[] = [];
    const take = defineTool({
      name: 'take_vial',
      description: 't',
      input: z.object({}),
      execute: (_input, ctx) => {
        (ctx.context as { vials: number }).vials -= 1;
        return 'taken';
      },
    });
    const agent = defineAgent({
      name: 'freezer',
      instructions: (ctx: InstructionsContext<{ vials: number }>) => {
        calls.push(structuredClone(ctx));
        return `Vials left: ${ctx.context.vials}.`;
      },
      model: scriptedModel([
        (request) => {
          requests.push(request);
          return { toolCalls: [{ name: 'take_vial', arguments: {} }] };
        },
        recording(requests, 'Done.'),
      ]),
      tools: [take],
    });
    const result = await runTurn(agent, { input: 'Take one', context: { vials: 3 }, runId: 'run_1' });
    expect(result.status).toBe('completed');
    expect(requests.map(systemOf)).toEqual(['Vials left: 3.', 'Vials left: 2.']);
    expect(calls[0]).toEqual({ context: { vials: 3 }, runId: 'run_1', agentPath: ['freezer'] });
  });

  it("is made for a sub-agent with its own agentPath and the parent's context", async () => {
    const paths: string[][] = [];
    const child = defineAgent({
      name: 'child',
      instructions: async ({ agentPath, context }) => {
        paths.push(agentPath);
        return `Child for ${(context as { team: string }).team}`;
      },
      model: scriptedModel([(request) => `system was: ${systemOf(request)}`]),
    });
    const parent = defineAgent({
      name: 'lead',
      instructions: 'Delegate.',
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'child', arguments: { input: 'go' } }] }, 'ok']),
      tools: [agentTool(child)],
    });
    const result = await runTurn(parent, { input: 'go', context: { team: 'cells' } });
    expect(paths).toEqual([['lead', 'child']]);
    expect(result.messages.find((message) => message.role === 'tool')?.content).toBe(
      'system was: Child for cells',
    );
  });

  it('fails the turn with INSTRUCTIONS_ERROR when the function throws, without calling the model; a retry goes on', async () => {
    const errors: unknown[] = [];
    let broken = true;
    const requests: ModelRequest[] = [];
    const agent = defineAgent({
      name: 'a',
      instructions: () => {
        if (broken) throw new Error('db down: postgres://secret@db');
        return 'Fine.';
      },
      model: scriptedModel([recording(requests, 'Hello.')]),
    });
    const failed = await runTurn(agent, { input: 'hi' }, { onError: (error) => errors.push(error) });
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('INSTRUCTIONS_ERROR');
    expect(failed.error?.message).not.toContain('secret');
    expect(failed.usage.modelCalls).toBe(0);
    expect(requests).toHaveLength(0);
    expect((errors[0] as Error).message).toContain('db down');
    broken = false;
    const retried = await runTurn(agent, { snapshot: failed.snapshot });
    expect(retried.output).toBe('Hello.');
    expect(systemOf(requests[0]!)).toBe('Fine.');
  });

  it('refuses instructions that are neither a string nor a function (CONFIG_INVALID)', () => {
    expect(() => defineAgent({ name: 'a', instructions: 42 as never, model: scriptedModel([]) })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});

describe('modelSettings', () => {
  it("sends the agent's settings as request.settings", async () => {
    const requests: ModelRequest[] = [];
    const agent = defineAgent({
      name: 'a',
      instructions: 'i',
      model: scriptedModel([recording(requests, 'ok')]),
      modelSettings: { temperature: 0, seed: 7, toolChoice: 'auto' },
    });
    await runTurn(agent, { input: 'hi' });
    expect(requests[0]?.settings).toEqual({ temperature: 0, seed: 7, toolChoice: 'auto' });
  });

  it("merges the call's settings over the agent's, provider options per provider", async () => {
    const requests: ModelRequest[] = [];
    const agent = defineAgent({
      name: 'a',
      instructions: 'i',
      model: scriptedModel([recording(requests, 'ok')]),
      modelSettings: {
        temperature: 0.2,
        stop: ['END'],
        providerOptions: { openai: { reasoning_effort: 'low', user: 'u1' }, other: { x: 1 } },
      },
    });
    await runTurn(
      agent,
      { input: 'hi' },
      {
        modelSettings: {
          temperature: 0.9,
          maxOutputTokens: 100,
          toolChoice: { type: 'function', name: 'lookup' },
          parallelToolCalls: false,
          providerOptions: { openai: { reasoning_effort: 'high' } },
        },
      },
    );
    expect(requests[0]?.settings).toEqual({
      temperature: 0.9,
      stop: ['END'],
      maxOutputTokens: 100,
      toolChoice: { type: 'function', name: 'lookup' },
      parallelToolCalls: false,
      providerOptions: { openai: { reasoning_effort: 'high', user: 'u1' }, other: { x: 1 } },
    });
  });

  it('sends no settings and no responseFormat key when the agent and the call have none', async () => {
    const requests: ModelRequest[] = [];
    const agent = defineAgent({
      name: 'a',
      instructions: 'i',
      model: scriptedModel([recording(requests, 'ok')]),
    });
    await runTurn(agent, { input: 'hi' });
    expect(Object.keys(requests[0]!).sort()).toEqual(['messages', 'onDelta', 'signal', 'tools']);
  });

  it("gives a sub-agent its own agent's settings, not those of its parent's call", async () => {
    const requests: ModelRequest[] = [];
    const child = defineAgent({
      name: 'child',
      instructions: 'c',
      model: scriptedModel([recording(requests, 'child done')]),
      modelSettings: { temperature: 0 },
    });
    const parent = defineAgent({
      name: 'lead',
      instructions: 'p',
      model: scriptedModel([{ toolCalls: [{ name: 'child', arguments: { input: 'go' } }] }, 'ok']),
      tools: [agentTool(child)],
    });
    await runTurn(parent, { input: 'go' }, { modelSettings: { toolChoice: 'required' } });
    expect(requests[0]?.settings).toEqual({ temperature: 0 });
  });

  it('refuses invalid settings on the agent and on the call, naming the field (CONFIG_INVALID)', async () => {
    const base = { name: 'a', instructions: 'i', model: scriptedModel(['ok']) };
    expect(() => defineAgent({ ...base, modelSettings: { temperature: -1 } })).toThrow(
      /modelSettings\.temperature/,
    );
    const agent = defineAgent(base);
    await expect(
      runTurn(agent, { input: 'hi' }, { modelSettings: { maxOutputTokens: 'many' } as never }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('maxOutputTokens') });
  });
});
