/**
 * Handoffs (DESIGN §27): a `transfer_to_<name>` tool per handoff, and the rest of the run played by
 * the agent it names — its instructions, model, tools, output schema and settings — on the same
 * transcript; the rules of a step that hands off; `approval` before the switch; `inputFilter`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  approve,
  defineAgent,
  handoff,
  type InputFilter,
  parseSnapshot,
  reject,
  runTurn,
  type ToolMessage,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { call, deskAgents } from './fixtures/desk-agents.js';
import { codeOf, errorCode, expectOneResultPerCall, toolResults } from './helpers.js';

const toFreezer = { toolCalls: [call('transfer_to_freezer', { reason: 'a freezer question' }, 'h1')] };

describe('a handoff', () => {
  it('offers one transfer tool per handoff, taking { reason? }', async () => {
    const { triage, requests } = deskAgents({ triage: { 0: 'Hello.' }, freezer: {} });
    await runTurn(triage, { input: 'hi' });
    const transfer = requests.triage[0]!.tools?.find((tool) => tool.function.name === 'transfer_to_freezer');
    expect(transfer?.function.parameters).toMatchObject({
      type: 'object',
      properties: { reason: { type: 'string' } },
    });
    expect(transfer?.function.parameters.required ?? []).toEqual([]);
  });

  it('plays the rest of the run with the agent it names, on the same transcript', async () => {
    const desk = deskAgents({
      triage: { 0: toFreezer },
      freezer: { 1: { toolCalls: [call('count_vials', { cellLine: 'K562' })] }, 2: 'K562: 3 vials.' },
    });
    const result = await runTurn(desk.triage, { input: 'How many K562 vials?' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('K562: 3 vials.');
    expect(result.activeAgent).toBe('freezer');
    expect(desk.log).toEqual(['count:K562']);
    const freezerCall = desk.requests.freezer[0]!;
    expect(freezerCall.messages[0]).toEqual({ role: 'system', content: 'You are the LN2 freezer desk.' });
    expect(freezerCall.settings).toEqual({ temperature: 0.1 });
    expect(freezerCall.tools?.map((tool) => tool.function.name)).toEqual([
      'count_vials',
      'record_thaw',
      'AskUserQuestion',
      'transfer_to_triage',
    ]);
    // The same transcript: the user's message, triage's transfer and its result.
    expect(freezerCall.messages.slice(1, 4).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    expect(JSON.parse(toolResults(result).h1!)).toEqual({ ok: true, transferred_to: 'freezer' });
    const handoffs = result.events.filter((event) => event.type === 'handoff');
    expect(handoffs).toMatchObject([
      { type: 'handoff', from: 'triage', to: 'freezer', agentPath: ['triage'] },
    ]);
    const later = result.events.filter((event) => event.type === 'model_started').at(-1);
    expect(later?.agentPath).toEqual(['freezer']);
    expect(parseSnapshot(result.snapshot).activeAgent).toEqual({ name: 'freezer', from: 'triage' });
    expect(parseSnapshot(result.snapshot).agent).toBe('triage');
  });

  it("uses the handed-to agent's output schema", async () => {
    const desk = deskAgents({
      triage: { 0: toFreezer },
      freezer: { 1: 'not json', 2: '{"vials":3}' },
      freezerConfig: { output: z.object({ vials: z.number() }) as never },
    });
    const result = await runTurn(desk.triage, { input: 'count' });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ vials: 3 });
    expect(desk.requests.freezer[0]!.responseFormat?.name).toBe('freezer');
  });

  it('may hand back: agents that name each other, through functions', async () => {
    const desk = deskAgents({
      triage: { 0: toFreezer, 2: 'Back at triage.' },
      freezer: { 1: { toolCalls: [call('transfer_to_triage', {}, 'h2')] } },
    });
    const result = await runTurn(desk.triage, { input: 'hi' });
    expect(result.output).toBe('Back at triage.');
    expect(result.activeAgent).toBe('triage');
    expect(
      result.events.filter((event) => event.type === 'handoff').map((event) => [event.from, event.to]),
    ).toEqual([
      ['triage', 'freezer'],
      ['freezer', 'triage'],
    ]);
    expect(parseSnapshot(result.snapshot).activeAgent).toEqual({ name: 'triage', from: 'freezer' });
  });
});

describe('a step that hands off', () => {
  it('runs the other calls first, then the handoff; a second handoff is ignored', async () => {
    const order: string[] = [];
    const desk = deskAgents({
      triage: {
        0: {
          toolCalls: [
            call('transfer_to_freezer', {}, 'h1'),
            call('look_up_ticket', {}, 't1'),
            call('transfer_to_triage_bis', {}, 'h2'),
          ],
        },
      },
      freezer: { 1: 'Done.' },
      triageHandoffs: (freezer) => [freezer, handoff(bis, { toolName: 'transfer_to_triage_bis' })],
    });
    const bis = defineAgent({ name: 'bis', instructions: 'x', model: scriptedModel(['unused']) });
    const result = await runTurn(
      desk.triage,
      { input: 'hi' },
      {
        onEvent: (event) => {
          if (event.type === 'tool_started' || event.type === 'tool_finished')
            order.push(`${event.type}:${event.toolName}`);
        },
      },
    );
    expect(order).toEqual([
      'tool_started:look_up_ticket',
      'tool_finished:look_up_ticket',
      'tool_started:transfer_to_freezer',
      'tool_finished:transfer_to_freezer',
    ]);
    expect(errorCode(toolResults(result).h2)).toBe('handoff_ignored');
    expect(result.activeAgent).toBe('freezer');
    expectOneResultPerCall(result);
  });

  it('waits for a question asked beside it: the asker answers, then the run moves', async () => {
    const question = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };
    const desk = deskAgents({
      triage: {
        0: { toolCalls: [call('AskUserQuestion', { questions: [question] }, 'q1'), toFreezer.toolCalls[0]!] },
      },
      freezer: { 1: 'Freezer here.' },
    });
    const paused = await runTurn(desk.triage, { input: 'hi' });
    expect(paused.status).toBe('needs_input');
    expect(paused.activeAgent).toBe('triage');
    expect(paused.pendingQuestion?.agentPath).toEqual(['triage']);
    const again = deskAgents({ triage: {}, freezer: { 1: 'Freezer here.' } });
    const { answerQuestion } = await import('../src/index.js');
    const done = await answerQuestion(again.triage, paused.snapshot, { answers: { Line: 'K562' } });
    expect(done.output).toBe('Freezer here.');
    expect(done.activeAgent).toBe('freezer');
    expectOneResultPerCall(done);
  });
});

describe('a handoff with approval', () => {
  const withApproval = () =>
    deskAgents({
      triage: { 0: toFreezer, 1: 'Staying at triage.' },
      freezer: { 1: 'Freezer here.' },
      triageHandoffs: (freezer) => [handoff(freezer, { approval: { assignees: ['lead'] } })],
    });

  it('pauses before the switch, as a tool approval does, and approve moves the run', async () => {
    const paused = await runTurn(withApproval().triage, { input: 'hi' });
    expect(paused.status).toBe('needs_input');
    expect(paused.activeAgent).toBe('triage');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'approval',
      toolName: 'transfer_to_freezer',
      agentPath: ['triage'],
      assignees: ['lead'],
      payload: { input: { reason: 'a freezer question' } },
    });
    const done = await approve(
      withApproval().triage,
      paused.snapshot,
      { id: paused.pendingQuestion!.id },
      { principal: 'lead' },
    );
    expect(done.output).toBe('Freezer here.');
    expect(done.activeAgent).toBe('freezer');
  });

  it('stays where it is when a new message supersedes the approval', async () => {
    const paused = await runTurn(withApproval().triage, { input: 'hi' });
    const done = await runTurn(withApproval().triage, { snapshot: paused.snapshot, input: 'never mind' });
    expect(done.activeAgent).toBe('triage');
    expect(errorCode(toolResults(done).h1)).toBe('superseded_by_user_message');
    expect(done.events.some((event) => event.type === 'handoff')).toBe(false);
  });

  it('stays where it is when the approval is rejected', async () => {
    const paused = await runTurn(withApproval().triage, { input: 'hi' });
    const done = await reject(
      withApproval().triage,
      paused.snapshot,
      { id: paused.pendingQuestion!.id, rationale: 'no' },
      { principal: 'lead' },
    );
    expect(done.output).toBe('Staying at triage.');
    expect(done.activeAgent).toBe('triage');
    expect(done.events.some((event) => event.type === 'handoff')).toBe(false);
    expect(errorCode(toolResults(done).h1)).toBe('rejected_by_user');
  });
});

describe('inputFilter', () => {
  const dropTools: InputFilter = (messages) => messages.filter((message) => message.role === 'user');

  it("trims what the handed-to agent's model is sent, on every call; the transcript stays whole", async () => {
    const desk = deskAgents({
      triage: { 0: toFreezer },
      freezer: { 1: { toolCalls: [call('count_vials', { cellLine: 'K562' })] }, 2: 'Three.' },
      triageHandoffs: (freezer) => [handoff(freezer, { inputFilter: dropTools })],
    });
    // The scripted model counts assistant messages: with them filtered out, it plays step 0 then 0.
    const filtered = deskAgents({
      triage: { 0: toFreezer },
      freezer: { 0: 'Three.' },
      triageHandoffs: (freezer) => [handoff(freezer, { inputFilter: dropTools })],
    });
    const result = await runTurn(filtered.triage, { input: 'How many?' });
    expect(result.output).toBe('Three.');
    expect(filtered.requests.freezer[0]!.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(desk.log).toEqual([]);
  });

  it('ends the turn failed with INPUT_FILTER_ERROR when it throws, the model not called', async () => {
    const errors: unknown[] = [];
    const desk = deskAgents({
      triage: { 0: toFreezer },
      freezer: { 1: 'never' },
      triageHandoffs: (freezer) => [
        handoff(freezer, {
          inputFilter: () => {
            throw new Error('boom');
          },
        }),
      ],
    });
    const result = await runTurn(desk.triage, { input: 'hi' }, { onError: (error) => errors.push(error) });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INPUT_FILTER_ERROR');
    expect(result.activeAgent).toBe('freezer');
    expect(desk.requests.freezer).toEqual([]);
    expect(errors).toHaveLength(1);
  });
});

describe('handoffs that cannot be', () => {
  const model = scriptedModel(['Hello.']);
  const other = defineAgent({ name: 'other', instructions: 'x', model });

  it('refuses handoffs that are not a list or a function', () => {
    expect(() => defineAgent({ name: 'a', instructions: 'x', model, handoffs: 'other' as never })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('refuses, when first needed, an entry that is not an agent, and a tool name taken twice', async () => {
    const notAgent = defineAgent({ name: 'a', instructions: 'x', model, handoffs: () => [{} as never] });
    expect(await codeOf(runTurn(notAgent, { input: 'hi' }))).toBe('CONFIG_INVALID');
    const twice = defineAgent({
      name: 'b',
      instructions: 'x',
      model,
      handoffs: [other, handoff(other, { toolName: 'transfer_to_other' })],
    });
    expect(await codeOf(runTurn(twice, { input: 'hi' }))).toBe('CONFIG_INVALID');
    expect(() => handoff(other, { toolName: 'no spaces' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('refuses two different agents of one name in the graph, on resume too', async () => {
    const twin = defineAgent({ name: 'other', instructions: 'y', model });
    const root = defineAgent({
      name: 'root',
      instructions: 'x',
      model,
      handoffs: [other, handoff(twin, { toolName: 'to_twin' })],
    });
    expect(await codeOf(runTurn(root, { input: 'hi' }))).toBe('CONFIG_INVALID');
  });

  it('gives a sub-agent no transfer tools: an agent tool calls and returns', async () => {
    const requests: unknown[] = [];
    const child = defineAgent({
      name: 'child',
      instructions: 'x',
      model: scriptedModel([
        (request) => {
          requests.push(request.tools?.map((tool) => tool.function.name));
          return 'child done';
        },
      ]),
      handoffs: [other],
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'x',
      model: scriptedModel([{ toolCalls: [call('child', { input: 'go' })] }, 'parent done']),
      tools: [agentTool(child, { description: 'the child' })],
    });
    const result = await runTurn(parent, { input: 'hi' });
    expect(result.output).toBe('parent done');
    expect(result.activeAgent).toBe('parent');
    expect(requests).toEqual([[]]);
    expect((result.messages[2] as ToolMessage).content).toBe('child done');
  });
});
