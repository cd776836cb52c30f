/**
 * Structured output (DESIGN §23): `defineAgent({ output })` asks the model for JSON, sends a refused
 * final answer back with its issues within `maxSteps`, and gives the parsed value as `output` —
 * also after a resume in another process, from sessions, and from a sub-agent to its parent.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentConfig,
  agentTool,
  answerQuestion,
  askUserQuestion,
  createSessions,
  defineAgent,
  type ModelRequest,
  memoryStore,
  runTurn,
  SnapshotError,
} from '../src/index.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { ask, cellLineQuestion, toolResults } from './helpers.js';

const Thaw = z.object({ cellLine: z.string(), vials: z.number().int().positive() });

function thawAgent(steps: ScriptedStep[], config: Partial<AgentConfig<z.infer<typeof Thaw>>> = {}) {
  return defineAgent({
    name: 'thaw.planner',
    instructions: 'Plan a thaw.',
    model: scriptedModel(steps),
    tools: [askUserQuestion()],
    output: Thaw,
    ...config,
  });
}

describe('defineAgent({ output })', () => {
  it('asks the model for JSON matching the schema and returns the parsed value as output', async () => {
    const requests: ModelRequest[] = [];
    const agent = thawAgent([
      (request) => {
        requests.push(request);
        return '{"cellLine":"K562","vials":2}';
      },
    ]);
    const result = await runTurn(agent, { input: 'Thaw two K562' });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ cellLine: 'K562', vials: 2 });
    expect(requests[0]?.responseFormat).toEqual({
      name: 'thaw_planner',
      schema: {
        type: 'object',
        properties: {
          cellLine: { type: 'string' },
          vials: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ['cellLine', 'vials'],
      },
    });
    expect(result.events.find((event) => event.type === 'turn_completed')).toMatchObject({
      output: '{"cellLine":"K562","vials":2}',
    });
  });

  it('sends a refused final answer back with its issues as `- path: message` lines, and completes with the next', async () => {
    const seen: ModelRequest[] = [];
    const agent = thawAgent([
      'Sure! Two vials of K562.',
      (request) => {
        seen.push(request);
        return '{"cellLine":"K562","vials":0}';
      },
      (request) => {
        seen.push(request);
        return '{"cellLine":"K562","vials":2}';
      },
    ]);
    const result = await runTurn(agent, { input: 'Thaw two K562' });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ cellLine: 'K562', vials: 2 });
    expect(result.usage.modelCalls).toBe(3);
    const notJson = seen[0]!.messages.at(-1)!;
    expect(notJson.role).toBe('user');
    expect(notJson.content).toContain('Error: Invalid JSON format');
    const badValue = seen[1]!.messages.at(-1)!.content!;
    expect(badValue).toContain('Error: Validation failed\n- vials: ');
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('ends max_steps (output null) when the last allowed answer is refused; a retry goes on from the issues', async () => {
    const agent = thawAgent(['not json', 'still not json', '{"cellLine":"HeLa","vials":1}'], { maxSteps: 2 });
    const first = await runTurn(agent, { input: 'Thaw one HeLa' });
    expect(first.status).toBe('max_steps');
    expect(first.output).toBeNull();
    expect(first.messages.at(-1)?.content).toContain('Invalid JSON format');
    const retried = await runTurn(agent, { snapshot: first.snapshot });
    expect(retried.status).toBe('completed');
    expect(retried.output).toEqual({ cellLine: 'HeLa', vials: 1 });
  });

  it('checks only final answers: a step with tool calls is not held to the schema', async () => {
    const agent = thawAgent([
      { text: 'Let me ask.', toolCalls: [ask([cellLineQuestion])] },
      '{"cellLine":"K562-dTAG","vials":1}',
    ]);
    const paused = await runTurn(agent, { input: 'Thaw one K562' });
    expect(paused.status).toBe('needs_input');
    // Another process: a new agent object with the same definition reads the snapshot.
    const elsewhere = thawAgent([
      { text: 'Let me ask.', toolCalls: [ask([cellLineQuestion])] },
      '{"cellLine":"K562-dTAG","vials":1}',
    ]);
    const resumed = await answerQuestion(elsewhere, paused.snapshot, {
      answers: { 'Cell line': 'K562-dTAG' },
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toEqual({ cellLine: 'K562-dTAG', vials: 1 });
  });

  it('gives the parsed output from sessions, also when the run is read again with get', async () => {
    const sessions = createSessions({
      agent: thawAgent([{ toolCalls: [ask([cellLineQuestion])] }, '{"cellLine":"K562","vials":3}']),
      store: memoryStore(),
    });
    const paused = await sessions.start('Thaw three K562');
    const done = await sessions.answer(paused.runId, { answers: { 'Cell line': 'K562 (Recommended)' } });
    expect(done.output).toEqual({ cellLine: 'K562', vials: 3 });
    const read = await sessions.get(paused.runId);
    expect(read.status).toBe('completed');
    expect(read.output).toEqual({ cellLine: 'K562', vials: 3 });
  });

  it('refuses to read a completed run whose answer the changed schema no longer accepts (SNAPSHOT_INCOMPATIBLE)', async () => {
    const store = memoryStore();
    const before = createSessions({ agent: thawAgent(['{"cellLine":"K562","vials":3}']), store });
    const { runId } = await before.start('Thaw three K562');
    const changed = defineAgent({
      name: 'thaw.planner',
      instructions: 'Plan a thaw.',
      model: scriptedModel([]),
      output: z.object({ cellLine: z.string(), boxes: z.number() }),
    });
    const error = await createSessions({ agent: changed, store })
      .get(runId)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).code).toBe('SNAPSHOT_INCOMPATIBLE');
    expect((error as Error).message).toContain('- boxes: ');
  });

  it("hands a sub-agent's parsed answer to its parent as the JSON text of the tool result", async () => {
    const child = thawAgent(['{"cellLine":"K562","vials":2}'], { name: 'planner' });
    const parent = defineAgent({
      name: 'lead',
      instructions: 'Delegate.',
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'planner', arguments: { input: 'Two K562' } }] },
        'Planned.',
      ]),
      tools: [agentTool(child)],
    });
    const result = await runTurn(parent, { input: 'Plan it' });
    expect(result.output).toBe('Planned.');
    expect(toolResults(result)).toEqual({ c1: '{"cellLine":"K562","vials":2}' });
    expect(agentTool(child).description).toBe(
      'Delegate a task to the planner agent. Returns its final answer as JSON.',
    );
  });

  it('refuses an output that is not a zod schema, or one with no JSON Schema form (CONFIG_INVALID)', () => {
    const base = { name: 'a', instructions: 'i', model: scriptedModel([]) };
    expect(() => defineAgent({ ...base, output: { type: 'object' } as never })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => defineAgent({ ...base, output: z.object({ at: z.date() }) })).toThrow(
      /output schema cannot be expressed as JSON Schema/,
    );
  });
});
