import { describe, expect, it } from 'vitest';
import {
  AnswerError,
  answerQuestion,
  approve,
  askUserQuestion,
  cancelQuestion,
  expire,
  reject,
  respond,
  runTurn,
  StateError,
} from '../src/index.js';
import {
  ask,
  cellLineQuestion,
  errorCode,
  expectOneResultPerCall,
  makeAgent,
  toolResults,
} from './helpers.js';

const authQuestion = {
  question: 'Which auth method should we use?',
  header: 'Auth',
  options: ['JWT', 'OAuth'],
};
const featuresQuestion = {
  question: 'Which features should be enabled?',
  header: 'Features',
  options: ['Caching', 'Logging', 'Metrics'],
  multiSelect: true,
};

const echoLastTool = (request: { messages: { role: string; content: string | null }[] }) =>
  `got ${request.messages.at(-1)?.content}`;

describe('AskUserQuestion: pause and answer', () => {
  it('pauses with needs_input, the pending question and a transcript ending with the call', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, echoLastTool]);
    const r1 = await runTurn(agent, { input: 'Thaw one K562 vial' });
    expect(r1.status).toBe('needs_input');
    expect(r1.needsInput).toBe(true);
    expect(r1.pending).toHaveLength(1);
    expect(r1.pendingQuestion).toMatchObject({
      id: 'inventory:1',
      kind: 'question',
      toolName: 'AskUserQuestion',
      agentPath: ['inventory'],
      expiresAt: null,
      payload: { questions: [{ id: 'q0', header: 'Cell line', multiSelect: false }] },
    });
    expect(r1.messages.at(-1)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { name: 'AskUserQuestion' } }],
    });
    expect(r1.events.map((event) => event.type).slice(-2)).toEqual(['interaction_requested', 'turn_paused']);
    const r2 = await answerQuestion(agent, r1.snapshot, { answers: { 'Cell line': 'K562-dTAG' } });
    expect(r2.status).toBe('completed');
    expect(r2.output).toBe('got {"answers":{"Cell line":"K562-dTAG"}}');
    expect(r2.events.map((event) => event.type)).toContain('interaction_resolved');
    expectOneResultPerCall(r2);
  });

  it('returns a needs_input run unchanged when continued without input', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }]);
    const r1 = await runTurn(agent, { input: 'go' });
    const again = await runTurn(agent, { snapshot: r1.snapshot });
    expect(again.snapshot).toBe(r1.snapshot);
    expect(again.events).toEqual([]);
    expect(again.usage).toEqual({ modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 });
    expect(again.pending).toEqual(r1.pending);
  });

  it('formats Other text, notes, skips and multi-select for the model', async () => {
    const agent = makeAgent([
      { toolCalls: [ask([authQuestion, featuresQuestion, cellLineQuestion])] },
      echoLastTool,
    ]);
    const r1 = await runTurn(agent, { input: 'go' });
    const r2 = await answerQuestion(agent, r1.snapshot, {
      answers: {
        Auth: { selected: [], other: 'mTLS', note: 'internal only' },
        Features: ['Metrics', 'Caching'],
        2: { skipped: true },
      },
    });
    expect(r2.output).toBe(
      'got {"answers":{"Auth":"Other (custom: mTLS) (note: internal only)","Features":"Caching, Metrics","Cell line":"(skipped)"}}',
    );
  });

  it('refuses an invalid answer with AnswerError and changes nothing', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, echoLastTool]);
    const r1 = await runTurn(agent, { input: 'go' });
    const error = await answerQuestion(agent, r1.snapshot, { answers: { 'Cell line': 'HeLa' } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AnswerError);
    expect((error as AnswerError).code).toBe('ANSWER_INVALID');
    expect((error as AnswerError).issues.length).toBeGreaterThan(0);
    const r2 = await answerQuestion(agent, r1.snapshot, { answers: 'K562 (Recommended)' });
    expect(r2.status).toBe('completed');
  });

  it('refuses to resume a run that is not waiting, or an interaction that is not pending', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']);
    const r1 = await runTurn(agent, { input: 'go' });
    await expect(
      answerQuestion(agent, r1.snapshot, { id: 'nope', answers: 'K562-dTAG' }),
    ).rejects.toMatchObject({
      code: 'INTERACTION_NOT_FOUND',
    });
    const r2 = await answerQuestion(agent, r1.snapshot, { answers: 'K562-dTAG' });
    const error = await answerQuestion(agent, r2.snapshot, { answers: 'K562-dTAG' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).code).toBe('NOT_WAITING');
    expect((error as Error).message).toContain('completed');
  });

  it('refuses approving a question (WRONG_KIND)', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }]);
    const r1 = await runTurn(agent, { input: 'go' });
    await expect(approve(agent, r1.snapshot)).rejects.toMatchObject({ code: 'WRONG_KIND' });
  });

  it('sends invalid question input back to the model as invalid_arguments, without pausing', async () => {
    const agent = makeAgent([
      { toolCalls: [ask([{ question: 'Which?', header: 'A header that is far too long', options: ['a'] }])] },
      echoLastTool,
    ]);
    const result = await runTurn(agent, { input: 'go' });
    expect(result.status).toBe('completed');
    const content = JSON.parse(Object.values(toolResults(result))[0]!);
    expect(content.error_code).toBe('invalid_arguments');
    expect(content.message).toContain('Error: Validation failed\n- questions[0].header: ');
    expect(content.message).toContain('\n- questions[0].options: ');
  });

  it('does not offer the question tool when interactive is false, and answers a call anyway with user_input_unavailable', async () => {
    let offered: string[] = [];
    const agent = makeAgent([
      (request) => {
        offered = request.tools.map((tool) => tool.function.name);
        return { toolCalls: [ask([cellLineQuestion])] };
      },
      'assumed K562',
    ]);
    const result = await runTurn(agent, { input: 'go' }, { interactive: false });
    expect(offered).not.toContain('AskUserQuestion');
    expect(result.status).toBe('completed');
    expect(errorCode(Object.values(toolResults(result))[0])).toBe('user_input_unavailable');
  });
});

describe('parallel interactions', () => {
  const twoQuestionsAndATool = {
    toolCalls: [
      ask([authQuestion], 'c1'),
      { id: 'c2', name: 'query_inventory', arguments: { cellLine: 'K562' } },
      ask([featuresQuestion], 'c3'),
    ],
  };

  it('batch: all interactions of a step are pending; answering some returns needs_input with the rest', async () => {
    const log: string[] = [];
    const agent = makeAgent([twoQuestionsAndATool, 'done'], {}, log);
    const r1 = await runTurn(agent, { input: 'go' });
    expect(r1.pending.map((item) => item.toolCallId)).toEqual(['c1', 'c3']);
    expect(log).toEqual(['K562']);
    await expect(answerQuestion(agent, r1.snapshot, { answers: 'JWT' })).rejects.toMatchObject({
      code: 'AMBIGUOUS_INTERACTION',
    });
    const r2 = await answerQuestion(agent, r1.snapshot, { id: r1.pending[1]!.id, answers: ['Logging'] });
    expect(r2.status).toBe('needs_input');
    expect(r2.pending.map((item) => item.toolCallId)).toEqual(['c1']);
    expect(r2.messages.at(-1)?.role).toBe('assistant');
    expect(r2.usage.modelCalls).toBe(0);
    const r3 = await answerQuestion(agent, r2.snapshot, { answers: { Auth: 'JWT' } });
    expect(r3.status).toBe('completed');
    expect(
      r3.messages
        .filter((message) => message.role === 'tool')
        .map((message) => (message as { tool_call_id: string }).tool_call_id),
    ).toEqual(['c1', 'c2', 'c3']);
    expect(log).toEqual(['K562']);
  });

  it('batch: answers several interactions at once with respond', async () => {
    const agent = makeAgent([twoQuestionsAndATool, 'done']);
    const r1 = await runTurn(agent, { input: 'go' });
    const r2 = await respond(agent, r1.snapshot, [
      { id: r1.pending[0]!.id, type: 'answer', answers: 'OAuth' },
      { id: r1.pending[1]!.id, type: 'cancel', reason: 'later' },
    ]);
    expect(r2.status).toBe('completed');
    const results = toolResults(r2);
    expect(results.c1).toBe('{"answers":{"Auth":"OAuth"}}');
    expect(errorCode(results.c3)).toBe('question_cancelled');
    expect(results.c3).toContain('later');
  });

  it('reject policy: a question next to another tool gets question_not_alone; the other tools run', async () => {
    const log: string[] = [];
    const agent = makeAgent([twoQuestionsAndATool, 'done'], { questions: { parallel: 'reject' } }, log);
    const result = await runTurn(agent, { input: 'go' });
    expect(result.status).toBe('completed');
    const results = toolResults(result);
    expect(errorCode(results.c1)).toBe('question_not_alone');
    expect(errorCode(results.c3)).toBe('question_not_alone');
    expect(log).toEqual(['K562']);
  });

  it('reject policy: several questions alone in a step are all pending', async () => {
    const agent = makeAgent([{ toolCalls: [ask([authQuestion], 'c1'), ask([featuresQuestion], 'c2')] }], {
      questions: { parallel: 'reject' },
    });
    const result = await runTurn(agent, { input: 'go' });
    expect(result.pending).toHaveLength(2);
  });

  it('single policy: the first interaction pauses, later ones get interaction_pending', async () => {
    const agent = makeAgent(
      [
        {
          toolCalls: [
            ask([authQuestion], 'c1'),
            { id: 'c2', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } },
            ask([featuresQuestion], 'c3'),
          ],
        },
        'done',
      ],
      { questions: { parallel: 'single' } },
    );
    const r1 = await runTurn(agent, { input: 'go' });
    expect(r1.pending.map((item) => item.toolCallId)).toEqual(['c1']);
    const r2 = await answerQuestion(agent, r1.snapshot, { answers: 'JWT' });
    const results = toolResults(r2);
    expect(errorCode(results.c2)).toBe('interaction_pending');
    expect(errorCode(results.c3)).toBe('interaction_pending');
  });
});

describe('approvals', () => {
  const thaw = { id: 't1', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

  it('pauses before a risky tool with the proposed input and reason; approve runs it once', async () => {
    const log: string[] = [];
    const agent = makeAgent([{ toolCalls: [thaw] }, echoLastTool], {}, log);
    const r1 = await runTurn(agent, { input: 'thaw two' });
    expect(r1.pendingQuestion).toMatchObject({
      kind: 'approval',
      toolName: 'record_thaw',
      payload: {
        toolName: 'record_thaw',
        input: { cellLine: 'K562', vials: 2 },
        reason: 'Removes 2 vial(s) of K562',
      },
    });
    expect(log).toEqual([]);
    const r2 = await approve(agent, r1.snapshot, { rationale: 'ok by PI' });
    expect(log).toEqual(['K562x2']);
    expect(r2.output).toBe('got {"recorded":true,"cellLine":"K562","vials":2}');
    const resolved = r2.events.find((event) => event.type === 'interaction_resolved');
    expect(resolved).toMatchObject({ resolution: 'approved', rationale: 'ok by PI' });
    expect(JSON.stringify(JSON.parse(r2.snapshot).state.context.resolved)).toContain('ok by PI');
  });

  it('approve with editedInput validates it, runs the edited call and tells the model', async () => {
    const log: string[] = [];
    const agent = makeAgent([{ toolCalls: [thaw] }, echoLastTool], {}, log);
    const r1 = await runTurn(agent, { input: 'thaw two' });
    const bad = await approve(agent, r1.snapshot, { editedInput: { cellLine: 'K562', vials: 'one' } }).catch(
      (caught: unknown) => caught,
    );
    expect(bad).toBeInstanceOf(AnswerError);
    expect((bad as AnswerError).message).toContain('vials');
    expect(log).toEqual([]);
    const r2 = await approve(agent, r1.snapshot, { editedInput: { cellLine: 'K562', vials: 1 } });
    expect(log).toEqual(['K562x1']);
    expect(JSON.parse(toolResults(r2).t1!)).toEqual({
      recorded: true,
      cellLine: 'K562',
      vials: 1,
      input_edited_by_user: { cellLine: 'K562', vials: 1 },
    });
  });

  it('reject tells the model rejected_by_user with the rationale, and the tool never runs', async () => {
    const log: string[] = [];
    const agent = makeAgent([{ toolCalls: [thaw] }, echoLastTool], {}, log);
    const r1 = await runTurn(agent, { input: 'thaw two' });
    await expect(answerQuestion(agent, r1.snapshot, { answers: 'x' })).rejects.toMatchObject({
      code: 'WRONG_KIND',
    });
    const r2 = await reject(agent, r1.snapshot, { rationale: 'we are out of stock' });
    expect(log).toEqual([]);
    expect(JSON.parse(toolResults(r2).t1!)).toMatchObject({
      ok: false,
      error_code: 'rejected_by_user',
      rationale: 'we are out of stock',
    });
  });

  it('a tool whose needsApproval returns false runs straight away', async () => {
    const log: string[] = [];
    const agent = makeAgent(
      [{ toolCalls: [{ ...thaw, arguments: { cellLine: 'K562', vials: 0 } }] }, 'x'],
      {},
      log,
    );
    const result = await runTurn(agent, { input: 'go' });
    expect(errorCode(toolResults(result).t1)).toBe('invalid_arguments');
  });
});

describe('cancel, supersede, expiry', () => {
  it('cancelQuestion gives question_cancelled (or approval_cancelled) and the loop goes on', async () => {
    const agent = makeAgent([
      {
        toolCalls: [
          ask([cellLineQuestion], 'q'),
          { id: 't', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } },
        ],
      },
      'ok',
    ]);
    const r1 = await runTurn(agent, { input: 'go' });
    const r2 = await cancelQuestion(agent, r1.snapshot, { id: r1.pending[0]!.id, reason: 'not now' });
    expect(r2.status).toBe('needs_input');
    const r3 = await cancelQuestion(agent, r2.snapshot);
    expect(r3.status).toBe('completed');
    expect(errorCode(toolResults(r3).q)).toBe('question_cancelled');
    expect(errorCode(toolResults(r3).t)).toBe('approval_cancelled');
  });

  it('a new user message supersedes pending calls, after the step results', async () => {
    const agent = makeAgent([
      {
        toolCalls: [
          ask([cellLineQuestion], 'q'),
          { id: 'c', name: 'query_inventory', arguments: { cellLine: 'K562' } },
        ],
      },
      echoLastTool,
    ]);
    const r1 = await runTurn(agent, { input: 'go' });
    const r2 = await runTurn(agent, { snapshot: r1.snapshot, input: 'never mind, HeLa' });
    expect(r2.status).toBe('completed');
    expect(errorCode(toolResults(r2).q)).toBe('superseded_by_user_message');
    expect(r2.messages.slice(-4).map((message) => message.role)).toEqual([
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    expect(r2.output).toBe('got never mind, HeLa');
    expect(r2.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      resolution: 'superseded',
    });
    expectOneResultPerCall(r2);
  });

  it('an answer after expiresAt is not used: question_timeout', async () => {
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, echoLastTool], {
      tools: [(await import('../src/index.js')).askUserQuestion({ timeoutMs: 60_000 })],
    });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const r1 = await runTurn(agent, { input: 'go' }, { now: t0 });
    expect(r1.pendingQuestion?.expiresAt).toBe('2026-05-01T10:01:00.000Z');
    const late = new Date('2026-05-01T10:02:00Z');
    const r2 = await answerQuestion(agent, r1.snapshot, { answers: 'not even a label' }, { now: late });
    expect(errorCode(Object.values(toolResults(r2))[0])).toBe('question_timeout');
  });

  it("onExpire 'recommended' takes each question's first option", async () => {
    const { askUserQuestion } = await import('../src/index.js');
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, echoLastTool], {
      tools: [askUserQuestion({ timeoutMs: 1000, onExpire: 'recommended' })],
    });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const r1 = await runTurn(agent, { input: 'go' }, { now: t0 });
    const early = await expire(agent, r1.snapshot, { now: new Date('2026-05-01T10:00:00.500Z') });
    expect(early.snapshot).toBe(r1.snapshot);
    expect(early.usage.modelCalls).toBe(0);
    const r2 = await expire(agent, r1.snapshot, { now: new Date('2026-05-01T10:00:05Z') });
    expect(r2.status).toBe('completed');
    expect(Object.values(toolResults(r2))[0]).toBe(
      '{"answers":{"Cell line":"K562 (Recommended) (chosen by default: no answer before 2026-05-01T10:00:01.000Z)"}}',
    );
  });

  it('an approval past approvalTimeoutMs gives approval_timeout', async () => {
    const { defineTool } = await import('../src/index.js');
    const { z } = await import('zod');
    const risky = defineTool({
      name: 'risky',
      description: 'r',
      input: z.object({}),
      needsApproval: true,
      approvalTimeoutMs: 10,
      execute: () => 'ran',
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'r', name: 'risky', arguments: {} }] }, 'ok'], {
      tools: [risky],
    });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const r1 = await runTurn(agent, { input: 'go' }, { now: t0 });
    const r2 = await approve(agent, r1.snapshot, {}, { now: new Date('2026-05-01T10:00:01Z') });
    expect(errorCode(toolResults(r2).r)).toBe('approval_timeout');
  });
});

describe('audit fields of interaction_resolved (DESIGN §12)', () => {
  const resolvedOf = (result: { events: { type: string }[] }) =>
    result.events.filter((event) => event.type === 'interaction_resolved');

  it('records the decision, the rationale and the edited input of approvals', async () => {
    const thaw = { name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };
    const agent = makeAgent([{ toolCalls: [thaw] }, 'done']);
    const paused = await runTurn(agent, { input: 'go' });
    const approved = await approve(agent, paused.snapshot, {
      rationale: 'only one is needed',
      editedInput: { cellLine: 'K562', vials: 1 },
    });
    expect(resolvedOf(approved)).toEqual([
      expect.objectContaining({
        decision: 'approved',
        resolution: 'approved',
        rationale: 'only one is needed',
        editedInput: { cellLine: 'K562', vials: 1 },
      }),
    ]);
    const rejected = await reject(agent, paused.snapshot, { rationale: 'not today' });
    expect(resolvedOf(rejected)).toEqual([
      expect.objectContaining({ decision: 'rejected', rationale: 'not today' }),
    ]);
    expect(resolvedOf(rejected)[0]).not.toHaveProperty('editedInput');
  });

  it('reports answered, cancelled, superseded and timed-out questions (a default taken is a timeout)', async () => {
    const asking = (options = {}) =>
      makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done'], {
        tools: [askUserQuestion({ timeoutMs: 1000, ...options })],
      });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const late = { now: new Date('2026-05-01T10:00:05Z') };
    const paused = await runTurn(asking(), { input: 'go' }, { now: t0 });
    const decisions = async (result: Promise<{ events: { type: string }[] }>) =>
      resolvedOf(await result).map((event) => (event as { decision?: string }).decision);
    expect(
      await decisions(answerQuestion(asking(), paused.snapshot, { answers: 'K562-dTAG' }, { now: t0 })),
    ).toEqual(['answered']);
    expect(
      await decisions(cancelQuestion(asking(), paused.snapshot, { reason: 'busy' }, { now: t0 })),
    ).toEqual(['cancelled']);
    expect(
      await decisions(runTurn(asking(), { snapshot: paused.snapshot, input: 'never mind' }, { now: t0 })),
    ).toEqual(['superseded']);
    expect(await decisions(expire(asking(), paused.snapshot, late))).toEqual(['timed_out']);
    const defaulting = asking({ onExpire: 'recommended' });
    const pausedDefault = await runTurn(defaulting, { input: 'go' }, { now: t0 });
    const defaulted = resolvedOf(await expire(defaulting, pausedDefault.snapshot, late));
    expect(defaulted).toEqual([expect.objectContaining({ decision: 'timed_out', resolution: 'defaulted' })]);
  });
});

describe('free-text questions end to end', () => {
  it('pauses on a question without options; a string answers it and the model reads the text itself', async () => {
    const boxQuestion = { question: 'Which box do you mean?', header: 'Box', options: [] };
    const agent = makeAgent([{ toolCalls: [ask([boxQuestion])] }, 'ok']);
    const paused = await runTurn(agent, { input: 'thaw from my box' });
    expect(paused.pendingQuestion).not.toHaveProperty('askedByTool');
    expect(paused.pendingQuestion?.payload).toEqual({
      questions: [
        { id: 'q0', question: 'Which box do you mean?', header: 'Box', options: [], multiSelect: false },
      ],
    });
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'B2-14' });
    expect(toolResults(done)[paused.pendingQuestion!.toolCallId]).toBe('{"answers":{"Box":"B2-14"}}');
    await expect(
      answerQuestion(agent, paused.snapshot, { answers: { Box: { selected: ['B2-14'] } } }),
    ).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
    });
  });

  it('refuses one option and a multi-select free-text question back to the model', async () => {
    const agent = makeAgent([
      {
        toolCalls: [
          ask([{ question: 'One?', header: 'One', options: ['Only'] }]),
          ask([{ question: 'Many?', header: 'Many', options: [], multiSelect: true }]),
        ],
      },
      'ok',
    ]);
    const result = await runTurn(agent, { input: 'go' });
    const messages = Object.values(toolResults(result)).map(
      (content) => JSON.parse(content).message as string,
    );
    expect(messages[0]).toContain('or none ([]) for a free-text question');
    expect(messages[1]).toContain('cannot be multiSelect');
  });
});
