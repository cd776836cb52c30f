/**
 * Tools that ask mid-execution (DESIGN §14): `return ctx.ask(request, state)` pauses the call as a
 * question, an approval or an input form; the answer runs the tool's `resume` — never `execute`
 * again — with the state it asked with. Cancel, expiry and supersede give the standard results
 * without calling `resume`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerQuestion,
  approve,
  cancelQuestion,
  createSessions,
  defineTool,
  expire,
  memoryStore,
  provideInput,
  reject,
  runTurn,
  type TurnResult,
} from '../src/index.js';
import { askingAgent, askLog } from './fixtures/asking-agent.js';
import { errorCode, expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';

const result = (turn: TurnResult) => toolResults(turn).call_tool;
const runsOf = (what: string) => askLog.filter((line) => line.startsWith(what)).length;

beforeEach(() => {
  askLog.length = 0;
});

describe('ctx.ask', () => {
  it('pauses on an input form; the value runs resume with the state, and execute ran once', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'input' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'input',
      toolName: 'record_thaw',
      toolCallId: 'call_tool',
      askedByTool: true,
      payload: {
        message: '3 boxes hold K562: which one?',
        schema: {
          type: 'object',
          properties: { box: { type: 'string', enum: ['B2-14', 'B2-15', 'C1-03'] } },
        },
      },
    });
    expect(paused.events.map((event) => event.type)).toContain('interaction_requested');
    const done = await provideInput(agent, paused.snapshot, { value: { box: 'B2-15' } });
    expect(done.status).toBe('completed');
    expect(JSON.parse(result(done)!)).toEqual({ thawed: 'K562', box: 'B2-15', of: 3, foundIsDate: true });
    expect(runsOf('execute')).toBe(1);
    expect(runsOf('resume record_thaw input')).toBe(1);
    expectOneResultPerCall(done);
  });

  it('shows a zod form with the additionalProperties: false of z.toJSONSchema, and refuses an unknown key', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'input' });
    expect(paused.pendingQuestion?.payload).toEqual({
      message: '3 boxes hold K562: which one?',
      schema: {
        type: 'object',
        properties: { box: { type: 'string', enum: ['B2-14', 'B2-15', 'C1-03'] } },
        required: ['box'],
        additionalProperties: false,
      },
    });
    await expect(
      provideInput(agent, paused.snapshot, { value: { box: 'B2-14', vials: 2 } }),
    ).rejects.toMatchObject({ code: 'ANSWER_INVALID' });
  });

  it('checks the value against the stored schema (ANSWER_INVALID with its path) and the kind (WRONG_KIND)', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'input' });
    await expect(provideInput(agent, paused.snapshot, { value: { box: 'Z9-99' } })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: ['value', 'box'], message: expect.stringContaining('expected one of') }],
    });
    await expect(answerQuestion(agent, paused.snapshot, { answers: 'B2-14' })).rejects.toMatchObject({
      code: 'WRONG_KIND',
      message: expect.stringContaining('provideInput'),
    });
    await expect(approve(agent, paused.snapshot)).rejects.toMatchObject({ code: 'WRONG_KIND' });
    expect(runsOf('resume')).toBe(0);
  });

  it('pauses on questions; resume reads the answers by header', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'question' });
    expect(paused.pendingQuestion).toMatchObject({ kind: 'question', toolName: 'relabel' });
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'Barcode' });
    expect(JSON.parse(result(done)!)).toEqual({ style: { selected: ['Barcode'] }, round: 1 });
    await expect(provideInput(agent, paused.snapshot, { value: 'Barcode' })).rejects.toMatchObject({
      code: 'WRONG_KIND',
    });
  });

  it('pauses on an approval; approve and reject both run resume (edited input passed through)', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'approval' });
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'approval',
      payload: {
        toolName: 'purge_records',
        input: { count: 40 },
        reason: expect.stringContaining('40 records'),
      },
    });
    const approved = await approve(agent, paused.snapshot, { editedInput: { count: 12 } });
    expect(JSON.parse(result(approved)!)).toEqual({ purged: 12 });
    const rejected = await reject(agent, paused.snapshot, { rationale: 'keep them' });
    expect(JSON.parse(result(rejected)!)).toEqual({ purged: 0, why: 'keep them' });
    expect(runsOf('resume purge_records approval')).toBe(2);
    expect(rejected.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      decision: 'rejected',
      rationale: 'keep them',
    });
  });

  it('lets resume ask again, each answer running resume once', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'twice' });
    const second = await answerQuestion(agent, paused.snapshot, { answers: 'New' });
    expect(second.status).toBe('needs_input');
    expect(second.pendingQuestion).toMatchObject({ kind: 'input', payload: { message: 'Box label?' } });
    expect(second.pendingQuestion!.id).not.toBe(paused.pendingQuestion!.id);
    const done = await provideInput(agent, second.snapshot, { value: { label: 'Box 7' } });
    expect(JSON.parse(result(done)!)).toEqual({
      label: 'Box 7',
      after: { round: 2, choice: { selected: ['New'] } },
    });
    expect(askLog.map((line) => line.replace(/ run_\S+$/, ''))).toEqual([
      'execute set_up_box',
      'resume set_up_box question',
      'resume set_up_box input',
    ]);
    expectOneResultPerCall(done);
  });

  it('gives the standard results without calling resume on cancel, expiry and a new message', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'input' });
    const cancelled = await cancelQuestion(agent, paused.snapshot, { reason: 'not now' });
    expect(errorCode(result(cancelled))).toBe('question_cancelled');
    expect(JSON.parse(result(cancelled)!).message).toContain('form');
    const superseded = await runTurn(agent, { snapshot: paused.snapshot, input: 'never mind' });
    expect(errorCode(result(superseded))).toBe('superseded_by_user_message');
    expect(runsOf('resume')).toBe(0);

    const timed = defineTool({
      name: 'timed',
      description: 'asks with a deadline',
      input: z.object({}),
      execute: (_input, ctx) => ctx.ask({ input: { message: 'Box?', schema: z.string() }, timeoutMs: 1000 }),
      resume: () => 'resumed',
    });
    const timedAgent = makeAgent([{ toolCalls: [{ id: 'call_tool', name: 'timed', arguments: {} }] }, 'ok'], {
      tools: [timed],
    });
    const t0 = new Date('2026-01-01T00:00:00Z');
    const waiting = await runTurn(timedAgent, { input: 'go' }, { now: t0 });
    expect(waiting.pendingQuestion?.expiresAt).toBe('2026-01-01T00:00:01.000Z');
    const late = { now: new Date('2026-01-01T00:00:05Z') };
    expect(errorCode(result(await expire(timedAgent, waiting.snapshot, late)))).toBe('question_timeout');
    // A value sent after the deadline is not used: the call times out.
    expect(errorCode(result(await provideInput(timedAgent, waiting.snapshot, { value: 'B2' }, late)))).toBe(
      'question_timeout',
    );
  });

  it('refuses an ask it cannot keep with a tool_error, and a tool without resume', async () => {
    const noResume = defineTool({
      name: 'no_resume',
      description: 'asks but cannot continue',
      input: z.object({}),
      execute: (_input, ctx) => ctx.ask({ input: { message: 'x', schema: z.string() } }),
    });
    const badQuestion = defineTool({
      name: 'bad_question',
      description: 'asks a question with one option',
      input: z.object({}),
      execute: (_input, ctx) =>
        ctx.ask({ questions: [{ question: 'One?', header: 'One', options: ['Only'] }] }),
      resume: () => 'never',
    });
    const badState = defineTool({
      name: 'bad_state',
      description: 'keeps a function as state',
      input: z.object({}),
      execute: (_input, ctx) =>
        ctx.ask({ input: { message: 'x', schema: z.string() } }, { callback: () => 1 }),
      resume: () => 'never',
    });
    const agent = makeAgent(
      [
        {
          toolCalls: [
            { id: 'a', name: 'no_resume', arguments: {} },
            { id: 'b', name: 'bad_question', arguments: {} },
            { id: 'c', name: 'bad_state', arguments: {} },
          ],
        },
        'ok',
      ],
      { tools: [noResume, badQuestion, badState] },
    );
    const done = await runTurn(agent, { input: 'go' });
    expect(done.status).toBe('completed');
    const results = toolResults(done);
    expect(JSON.parse(results.a!).message).toContain('has no resume function');
    expect(JSON.parse(results.b!).message).toContain('options');
    expect(JSON.parse(results.c!).message).toContain('state.callback holds a function');
    expect(() =>
      defineTool({
        name: 'x',
        description: 'x',
        input: z.object({}),
        execute: () => 1,
        resume: 'no' as never,
      }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('tells a headless run’s tool that no one can answer its question or form', async () => {
    const agent = askingAgent();
    const done = await runTurn(agent, { input: 'input' }, { interactive: false });
    expect(errorCode(result(done))).toBe('user_input_unavailable');
    const approval = await runTurn(agent, { input: 'approval' }, { interactive: false });
    expect(approval.pendingQuestion?.kind).toBe('approval');
  });
});

describe('a form given as a JSON Schema, and a tool offering its own JSON Schema', () => {
  it('keeps a form’s jsonSchema exactly as given, and checks the value against it', async () => {
    const jsonSchema = {
      type: 'object',
      properties: {
        box: {
          type: 'string',
          title: 'Box',
          oneOf: [
            { const: 'B2', title: 'Box B2' },
            { const: 'C1', title: 'Box C1' },
          ],
        },
      },
      required: ['box'],
    };
    const pick = defineTool({
      name: 'pick',
      description: 'asks with an MCP-style form',
      input: z.object({}),
      execute: (_input, ctx) => ctx.ask({ input: { message: 'Which box?', jsonSchema } }),
      resume: (_input, response) => (response as { value: unknown }).value,
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'call_tool', name: 'pick', arguments: {} }] }, 'ok'], {
      tools: [pick],
    });
    const paused = await runTurn(agent, { input: 'go' });
    expect(paused.pendingQuestion?.payload).toEqual({ message: 'Which box?', schema: jsonSchema });
    await expect(provideInput(agent, paused.snapshot, { value: { box: 'Z9' } })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
    });
    const done = await provideInput(agent, paused.snapshot, { value: { box: 'C1' } });
    expect(result(done)).toBe('{"box":"C1"}');
  });

  it('offers `parameters` as given while `input` checks the arguments', async () => {
    const parameters = {
      type: 'object',
      properties: { q: { type: 'string', description: 'as the server wrote it' } },
    };
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'remote',
      description: 'a tool with its own schema',
      input: z.object({ q: z.string() }),
      parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...parameters },
      execute: ({ q }) => `got ${q}`,
    });
    expect(tool.spec.function.parameters).toEqual(parameters);
    const agent = makeAgent(
      [
        (request) => {
          seen.push(request.tools.find((spec) => spec.function.name === 'remote')?.function.parameters);
          return { toolCalls: [{ id: 'call_tool', name: 'remote', arguments: { q: 7 } }] };
        },
        'ok',
      ],
      { tools: [tool] },
    );
    const done = await runTurn(agent, { input: 'go' });
    expect(seen[0]).toEqual(parameters);
    expect(errorCode(result(done))).toBe('invalid_arguments');
    expect(() =>
      defineTool({
        name: 'bad',
        description: 'b',
        input: z.object({}),
        parameters: [] as never,
        execute: () => 1,
      }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('ctx.ask and aborts', () => {
  it('runs resume again after an abort interrupted it, with the same idempotency key', async () => {
    const keys: string[] = [];
    let block = true;
    const slow = defineTool({
      name: 'slow',
      description: 'asks, then resumes slowly',
      input: z.object({}),
      execute: (_input, ctx) => ctx.ask({ input: { message: 'Go?', schema: z.boolean() } }),
      resume: async (_input, _response, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (block) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return 'resumed';
      },
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'call_tool', name: 'slow', arguments: {} }] }, 'ok'], {
      tools: [slow],
    });
    const paused = await runTurn(agent, { input: 'go' });
    const controller = new AbortController();
    const answering = provideInput(agent, paused.snapshot, { value: true }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const aborted = await answering;
    expect(aborted.status).toBe('aborted');
    block = false;
    const retried = await runTurn(agent, { snapshot: aborted.snapshot });
    expect(retried.status).toBe('completed');
    expect(result(retried)).toBe('resumed');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });
});

describe('ctx.ask in sessions', () => {
  it('provideInput claims before it acts; a repeated value reads the run, a different one conflicts', async () => {
    const sessions = createSessions({ agent: askingAgent(), store: memoryStore() });
    const paused = await sessions.start('input');
    const done = await sessions.provideInput(paused.runId, { value: { box: 'C1-03' } });
    expect(done.status).toBe('completed');
    const again = await sessions.provideInput(paused.runId, { value: { box: 'C1-03' } });
    expect(again.status).toBe('completed');
    await expect(sessions.provideInput(paused.runId, { value: { box: 'B2-14' } })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(runsOf('execute')).toBe(1);
    expect(runsOf('resume')).toBe(1);
  });
});

describe('ctx.ask after an edited approval', () => {
  it('resume gets the input the human approved, as execute did', async () => {
    const seen: Array<[string, unknown]> = [];
    const move = defineTool({
      name: 'move_box',
      description: 'Moves a box, asking which rack.',
      input: z.object({ box: z.string() }),
      needsApproval: true,
      execute: async (input, ctx) => {
        seen.push(['execute', input.box]);
        return ctx.ask({ input: { message: 'Which rack?', schema: z.object({ rack: z.string() }) } }, {});
      },
      resume: async (input, response) => {
        seen.push(['resume', input.box]);
        return { moved: input.box, to: response.kind === 'input' ? response.value : null };
      },
    });
    const agent = makeAgent(
      [{ toolCalls: [{ id: 'call_tool', name: 'move_box', arguments: { box: 'model' } }] }, 'ok'],
      {
        tools: [move],
      },
    );
    const paused = await runTurn(agent, { input: 'go' });
    const asked = await approve(agent, paused.snapshot, { editedInput: { box: 'edited' } });
    expect(asked.pendingQuestion?.kind).toBe('input');
    const done = await provideInput(agent, asked.snapshot, { value: { rack: 'R2' } });
    expect(done.status).toBe('completed');
    expect(seen).toEqual([
      ['execute', 'edited'],
      ['resume', 'edited'],
    ]);
    expect(JSON.parse(result(done) ?? '')).toMatchObject({
      moved: 'edited',
      input_edited_by_user: { box: 'edited' },
    });
    expectOneResultPerCall(done);
  });
});
