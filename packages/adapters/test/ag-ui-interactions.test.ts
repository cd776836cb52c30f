import { defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  askingToolAgent,
  cellLineQuestion,
  client,
  closeServers,
  formAgent,
  inventoryAgent,
  lastEvent,
  post,
  SECRET,
  serveAgUi,
  subagentApprovalAgent,
  typesOf,
} from './helpers/ag-ui-fixtures.js';

afterEach(closeServers);

describe('agUiHandler maps every interaction kind', () => {
  it("answers a tool's input form with its value, checked against the form's schema", async () => {
    const boxes: string[] = [];
    const url = await serveAgUi({ agent: formAgent(boxes), store: memoryStore() });
    const lab = client(url, 'thread-form');
    await lab.run();
    const [form] = lab.agent.pendingInterrupts;
    expect(form).toMatchObject({
      reason: 'input_required',
      message: 'Which box holds K562?',
      responseSchema: { type: 'object', properties: { box: { enum: ['B2-14', 'B2-15'] } } },
      metadata: { turnkit: { kind: 'input', toolName: 'record_thaw' } },
    });
    // No top-level call stands for a tool's own ask: the interrupt carries its interaction id.
    expect(form!.toolCallId).toBe(form!.id);

    const wrong = await post(url, {
      threadId: 'thread-form',
      runId: 'r-wrong',
      messages: [],
      resume: [{ interruptId: form!.id, status: 'resolved', payload: { box: 'Z9' } }],
    });
    expect(wrong).toMatchObject({ status: 422, problem: { code: 'ANSWER_INVALID' } });
    expect(boxes).toEqual([]);

    const done = await lab.run({
      resume: [{ interruptId: form!.id, status: 'resolved', payload: { box: 'B2-15' } }],
    });
    expect(done.result).toBe('Recorded: {"thawed":"K562","box":"B2-15"}');
    expect(boxes).toEqual(['B2-15']);
  });

  it("maps a tool's own question (ctx.ask) to an interrupt with the interaction id as toolCallId", async () => {
    const url = await serveAgUi({ agent: askingToolAgent(), secret: SECRET });
    const lab = client(url, 'thread-ask');
    await lab.run();
    const [question] = lab.agent.pendingInterrupts;
    expect(question).toMatchObject({
      reason: 'input_required',
      message: 'Which medium?',
      metadata: { turnkit: { kind: 'question', toolName: 'pick_medium' } },
    });
    expect(question!.toolCallId).toBe(question!.id);
    const done = await lab.run({
      resume: [{ interruptId: question!.id, status: 'resolved', payload: { answers: { Medium: 'DMEM' } } }],
    });
    expect(done.result).toContain('DMEM');
  });

  it("maps a sub-agent's approval bubbling up, and runs its tool once approved", async () => {
    const disposed: string[] = [];
    const url = await serveAgUi({ agent: subagentApprovalAgent(disposed), store: memoryStore() });
    const lab = client(url, 'thread-sub');
    await lab.run();
    const [approval] = lab.agent.pendingInterrupts;
    expect(approval).toMatchObject({
      reason: 'tool_call',
      message: 'Disposal cannot be undone.',
      responseSchema: { required: ['approved'] },
      metadata: { turnkit: { kind: 'approval', toolName: 'dispose_vial', agentPath: ['lead', 'cleaner'] } },
    });
    expect(approval!.toolCallId).toBe(approval!.id);
    // The lead's own call to the cleaner stays open (no result) while the sub-agent waits.
    expect(lab.agent.messages.at(-1)).toMatchObject({ toolCalls: [{ function: { name: 'cleaner' } }] });

    const done = await lab.run({
      resume: [{ interruptId: approval!.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(disposed).toEqual(['A3-07']);
    expect(done.result).toBe('Lead: Cleaned: {"disposed":"A3-07"}');
  });
});

describe('several interrupts at once', () => {
  it('ends the run with all of them, and one resume answers them together', async () => {
    const thawed: string[][] = [];
    const agent = inventoryAgent({ thawed });
    const both = defineAgent({
      ...agent,
      tools: [...agent.tools],
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'AskUserQuestion', arguments: { questions: [cellLineQuestion] } },
            { name: 'thaw_vials', arguments: { cellLines: ['HeLa'], count: 1 } },
          ],
        },
        'Both settled.',
      ]),
    });
    const url = await serveAgUi({ agent: both, store: memoryStore() });
    const lab = client(url, 'thread-both');
    await lab.run();
    expect(lab.agent.pendingInterrupts.map((interrupt) => interrupt.reason)).toEqual([
      'input_required',
      'tool_call',
    ]);
    const [question, approval] = lab.agent.pendingInterrupts;
    const done = await lab.run({
      resume: [
        { interruptId: question!.id, status: 'resolved', payload: { answers: { 'Cell lines': ['HeLa'] } } },
        { interruptId: approval!.id, status: 'resolved', payload: { approved: true } },
      ],
    });
    expect(done.result).toBe('Both settled.');
    expect(thawed).toEqual([['HeLa']]);
  });
});

describe('a tool message in place of resume', () => {
  it('answers the question whose toolCallId it names, once, whatever is sent again', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const first = client(url, 'thread-tool-message');
    await first.run();
    const [question] = first.agent.pendingInterrupts;

    // A front end that answers by adding the tool's result (a fresh agent: no pending-interrupt guard).
    const answer = {
      id: 'tm1',
      role: 'tool' as const,
      toolCallId: question!.toolCallId!,
      content: JSON.stringify({ answers: { 'Cell lines': ['HeLa'] } }),
    };
    const second = client(url, 'thread-tool-message', [...first.agent.messages, answer]);
    await second.run();
    expect(second.agent.pendingInterrupts[0]).toMatchObject({ reason: 'tool_call' });
    const result = second.agent.messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ id: 'tm1', content: '{"answers":{"Cell lines":"HeLa"}}' });

    // The same messages again: the question is no longer pending, so nothing is answered twice.
    const again = await post(url, {
      threadId: 'thread-tool-message',
      runId: 'r-again',
      messages: [...first.agent.messages, answer],
    });
    expect(lastEvent(again.events)).toMatchObject({ outcome: { type: 'interrupt' } });
    expect(again.events.find((event) => event.type === 'RUN_FINISHED').outcome.interrupts[0].reason).toBe(
      'tool_call',
    );

    // With resume for the same interrupt, resume wins and the tool message is ignored.
    const approval = second.agent.pendingInterrupts[0]!;
    await second.run({
      resume: [{ interruptId: approval.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(thawed).toEqual([['K562']]);
    expect(typesOf(second.events).at(-1)).toBe('RUN_FINISHED');
  });

  it('takes a plain-text tool message as the answer to a one-question interrupt', async () => {
    const url = await serveAgUi({ agent: askingToolAgent(), store: memoryStore() });
    const lab = client(url, 'thread-plain');
    await lab.run();
    const [question] = lab.agent.pendingInterrupts;
    const fresh = client(url, 'thread-plain', [
      ...lab.agent.messages,
      { id: 'tm', role: 'tool', toolCallId: question!.toolCallId!, content: 'RPMI' },
    ]);
    const done = await fresh.run();
    expect(done.result).toContain('RPMI');
  });
});
