import { buildResumeArray } from '@ag-ui/client';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  client,
  closeServers,
  inventoryAgent,
  lastEvent,
  SECRET,
  serveAgUi,
  typesOf,
} from './helpers/ag-ui-fixtures.js';

afterEach(async () => {
  vi.restoreAllMocks();
  await closeServers();
});

const cellLines = { answers: { 'Cell lines': ['K562'] } };

describe('agUiHandler in store mode, driven by @ag-ui/client HttpAgent', () => {
  it('plays question → approval → completed, the tool running once', async () => {
    const warnings = vi.spyOn(console, 'warn');
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const lab = client(url, 'thread-1');

    await lab.run();
    expect(typesOf(lab.events)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      ...Array(7).fill('TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'MESSAGES_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const [question] = lab.agent.pendingInterrupts;
    expect(question).toMatchObject({
      reason: 'input_required',
      message: 'Which cell lines should I thaw?',
      responseSchema: { required: ['answers'] },
      metadata: { turnkit: { kind: 'question', toolName: 'AskUserQuestion', agentPath: ['inventory'] } },
    });
    const askCall = lab.agent.messages.find((message) => message.role === 'assistant')?.toolCalls?.[0];
    expect(question!.toolCallId).toBe(askCall?.id);
    expect(lab.agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(lab.agent.messages[0]!.id).toBe('u1');

    await lab.run({
      resume: buildResumeArray(lab.agent.pendingInterrupts, {
        [question!.id]: { status: 'resolved', payload: cellLines },
      }),
    });
    const [approval] = lab.agent.pendingInterrupts;
    expect(approval).toMatchObject({
      reason: 'tool_call',
      message: 'Thawing cannot be undone.',
      responseSchema: { required: ['approved'] },
      metadata: {
        turnkit: { kind: 'approval', toolName: 'thaw_vials', input: { cellLines: ['K562'], count: 1 } },
      },
    });
    expect(typesOf(lab.events)).toContain('TOOL_CALL_RESULT');
    expect(thawed).toEqual([]);

    const done = await lab.run({
      resume: [{ interruptId: approval!.id, status: 'resolved', payload: { approved: true, reason: 'ok' } }],
    });
    expect(thawed).toEqual([['K562']]);
    expect(lab.agent.pendingInterrupts).toEqual([]);
    expect(lastEvent(lab.events)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(done.result).toBe('Done: {"thawed":["K562"],"count":1}');
    expect(lab.agent.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(lab.agent.messages[0]!.id).toBe('u1');
    expect(warnings.mock.calls.filter((call) => String(call[0]).includes('[ag-ui]'))).toEqual([]);
  });

  it('keeps message ids stable across runs and goes on with a new user message', async () => {
    const url = await serveAgUi({ agent: inventoryAgent(), store: memoryStore() });
    const lab = client(url, 'thread-ids');
    await lab.run();
    await lab.run({
      resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: cellLines }],
    });
    await lab.run({
      resume: [
        { interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: { approved: true } },
      ],
    });
    const ids = lab.agent.messages.map((message) => message.id);
    lab.agent.addMessage({ id: 'u2', role: 'user', content: 'Thanks' });
    const thanks = await lab.run();
    expect(thanks.result).toBe('You are welcome.');
    expect(lab.agent.messages.map((message) => message.id)).toEqual([...ids, 'u2', expect.any(String)]);
  });

  it('cancels a question and rejects an approval with status cancelled', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const lab = client(url, 'thread-cancel');
    await lab.run();
    await lab.run({ resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'cancelled' }] });
    const cancelled = lab.events.find((event) => event.type === 'TOOL_CALL_RESULT') as { content?: string };
    expect(cancelled.content).toContain('question_cancelled');
    expect(lab.agent.pendingInterrupts[0]).toMatchObject({ reason: 'tool_call' });
    await lab.run({ resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'cancelled' }] });
    const rejected = lab.events.find((event) => event.type === 'TOOL_CALL_RESULT') as { content?: string };
    expect(rejected.content).toContain('rejected_by_user');
    expect(thawed).toEqual([]);
    expect(lastEvent(lab.events)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('runs an approved tool with the edited input', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const lab = client(url, 'thread-edit');
    await lab.run();
    await lab.run({
      resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: cellLines }],
    });
    const approval = lab.agent.pendingInterrupts[0]!;
    expect(approval.responseSchema).toMatchObject({
      properties: { editedArgs: { properties: { cellLines: { type: 'array' } } } },
    });
    await lab.run({
      resume: [
        {
          interruptId: approval.id,
          status: 'resolved',
          payload: { approved: true, editedArgs: { cellLines: ['HeLa'], count: 2 } },
        },
      ],
    });
    expect(thawed).toEqual([['HeLa']]);
  });
});

describe('agUiHandler in client-held mode', () => {
  it('carries the snapshot in STATE_SNAPSHOT.snapshot.turnkit, with a fresh handler for every request', async () => {
    const thawed: string[][] = [];
    const agent = inventoryAgent({ thawed });
    const lab = client('http://placeholder', 'thread-held');
    // Each run goes to a new handler on a new port: nothing but the client's state carries the run.
    const next = async () => {
      lab.agent.url = await serveAgUi({ agent, secret: SECRET });
    };
    await next();
    lab.agent.state = { theme: 'dark' };
    await lab.run();
    expect(lab.agent.state).toMatchObject({ theme: 'dark', turnkit: expect.any(String) });
    expect(typesOf(lab.events).slice(-3)).toEqual(['MESSAGES_SNAPSHOT', 'STATE_SNAPSHOT', 'RUN_FINISHED']);

    await next();
    await lab.run({
      resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: cellLines }],
    });
    await next();
    const done = await lab.run({
      resume: [
        { interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: { approved: true } },
      ],
    });
    expect(done.result).toBe('Done: {"thawed":["K562"],"count":1}');
    expect(thawed).toEqual([['K562']]);
    expect(lab.agent.state).toMatchObject({ theme: 'dark' });
  });

  it('reads an encrypted snapshot no better than any stranger', async () => {
    const url = await serveAgUi({ agent: inventoryAgent(), secret: SECRET, encrypt: true });
    const lab = client(url, 'thread-sealed');
    await lab.run();
    const sealed = (lab.agent.state as { turnkit: string }).turnkit;
    expect(sealed).toContain('"enc"');
    expect(sealed).not.toContain('Which cell lines');
    await lab.run({
      resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: cellLines }],
    });
    expect(lab.agent.pendingInterrupts[0]).toMatchObject({ reason: 'tool_call' });
  });
});
