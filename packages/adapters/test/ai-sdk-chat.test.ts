/**
 * `aiSdkHandler` driven by AI SDK's own client, as a `useChat` front end drives it: `AbstractChat`
 * over `DefaultChatTransport` against the handler on loopback, on the latest `ai@6` and on
 * `ai@6.0.0` exactly. Every chunk streamed in these tests is checked against `ai@6.0.0`'s strict
 * schemas after each test.
 */
import { memoryStore } from '@turnkit/core';
import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { turnkitSendAutomaticallyWhen } from '../src/protocols/ai-sdk-ui/client.js';
import { aiSdkHandler } from '../src/protocols/ai-sdk-ui/index.js';
import { askingAgent, leadAgent, newCounts } from './helpers/ai-sdk-agents.js';
import {
  AI_VERSIONS,
  type AiModule,
  answer,
  type ChatServer,
  chatServers,
  decide,
  makeChat,
  partByType,
  partOf,
  partsOf,
  say,
  turnkitOf,
} from './helpers/ai-sdk-chat.js';
import { inventoryAgent, SECRET } from './http-fixtures.js';

const open = chatServers();

describe.each(AI_VERSIONS)('aiSdkHandler with AbstractChat ($name)', ({ ai }) => {
  const chatOn = (server: ChatServer, ai: AiModule, id = 'chat-1', messages?: UIMessage[]) =>
    makeChat(ai, {
      api: server.url,
      id,
      sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
      ...(messages ? { messages } : {}),
    });

  it('plays question → approval → completed in store mode, running the tool once', async () => {
    const thawed: string[][] = [];
    const server = await open(aiSdkHandler({ agent: inventoryAgent({ thawed }), store: memoryStore() }));
    const chat = chatOn(server, ai);
    await say(chat, server, 'Thaw one');
    const question = partByType(chat, 'tool-AskUserQuestion');
    expect(question.state).toBe('input-available');
    expect(question.input.questions[0].header).toBe('Cell lines');
    expect(turnkitOf(chat)).toMatchObject({
      runId: 'chat-1',
      status: 'needs_input',
      pending: [{ kind: 'question', toolCallId: question.toolCallId }],
    });

    await answer(chat, server, question.toolCallId, { answers: { 'Cell lines': ['K562'] } });
    const approval = partByType(chat, 'tool-thaw_vials');
    expect(approval).toMatchObject({ state: 'approval-requested', input: { cellLines: ['K562'], count: 1 } });
    expect(server.exchanges[1]!.body).toMatchObject({ id: 'chat-1', trigger: 'submit-message' });

    await decide(chat, server, approval.approval.id, true);
    expect(chat.status).toBe('ready');
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(chat.lastMessage)).toEqual([
      'step',
      'text:Let me ask which lines you need.',
      'tool-AskUserQuestion/output-available',
      'step',
      'text:I will thaw them once you approve.',
      'tool-thaw_vials/output-available',
      'step',
      'text:Done: {"thawed":["K562"],"count":1}',
    ]);
    expect(partOf(chat, approval.toolCallId).output).toEqual({ thawed: ['K562'], count: 1 });
    expect(thawed).toEqual([['K562']]);
    expect(server.exchanges).toHaveLength(3);
  });

  it("works with AI SDK's stock predicates when every interaction is a call's own part", async () => {
    const server = await open(aiSdkHandler({ agent: inventoryAgent(), store: memoryStore() }));
    const chat = makeChat(ai, {
      api: server.url,
      id: 'stock',
      sendAutomaticallyWhen: ({ messages }) =>
        ai.lastAssistantMessageIsCompleteWithToolCalls({ messages }) ||
        ai.lastAssistantMessageIsCompleteWithApprovalResponses({ messages }),
    });
    await say(chat, server, 'Thaw one');
    await answer(chat, server, partByType(chat, 'tool-AskUserQuestion').toolCallId, { answers: ['HeLa'] });
    await decide(chat, server, partByType(chat, 'tool-thaw_vials').approval.id, true);
    expect(turnkitOf(chat).status).toBe('completed');
  });

  it('denies a rejected approval: tool-output-denied, the tool never runs', async () => {
    const thawed: string[][] = [];
    const server = await open(aiSdkHandler({ agent: inventoryAgent({ thawed }), store: memoryStore() }));
    const chat = chatOn(server, ai);
    await say(chat, server, 'Thaw one');
    await answer(chat, server, partByType(chat, 'tool-AskUserQuestion').toolCallId, { answers: 'K562' });
    const approval = partByType(chat, 'tool-thaw_vials');
    await decide(chat, server, approval.approval.id, false, 'Out of stock');
    expect(partOf(chat, approval.toolCallId)).toMatchObject({
      state: 'output-denied',
      approval: { approved: false, reason: 'Out of stock' },
    });
    expect(partsOf(chat.lastMessage).at(-1)).toContain('rejected_by_user');
    expect(thawed).toEqual([]);
  });

  it('cancels a question answered with an output-error, and the run goes on', async () => {
    const server = await open(aiSdkHandler({ agent: inventoryAgent(), store: memoryStore() }));
    const chat = chatOn(server, ai);
    await say(chat, server, 'Thaw one');
    const question = partByType(chat, 'tool-AskUserQuestion');
    await answer(chat, server, question.toolCallId, { errorText: 'Never mind' });
    expect(chat.status).toBe('ready');
    expect(partOf(chat, question.toolCallId).state).toBe('output-error');
    // The model read question_cancelled and asked for approval next.
    expect(partByType(chat, 'tool-thaw_vials').state).toBe('approval-requested');
  });

  it('plays client-held mode with a fresh handler per request, the snapshot in the metadata', async () => {
    const thawed: string[][] = [];
    const agent = inventoryAgent({ thawed });
    const server = await open((request) => aiSdkHandler({ agent, secret: SECRET, encrypt: true })(request));
    const chat = chatOn(server, ai, 'held-1');
    await say(chat, server, 'Thaw one');
    const first = turnkitOf(chat).snapshot;
    expect(first).toContain('"enc":{"alg":"A256GCM"');
    expect(first).not.toContain('Cell lines');
    await answer(chat, server, partByType(chat, 'tool-AskUserQuestion').toolCallId, { answers: ['K562'] });
    await decide(chat, server, partByType(chat, 'tool-thaw_vials').approval.id, true);
    expect(thawed).toEqual([['K562']]);
    expect(turnkitOf(chat).status).toBe('completed');
    expect(turnkitOf(chat).snapshot).not.toBe(first);

    await say(chat, server, 'Thanks');
    expect(chat.messages).toHaveLength(4);
    expect(partsOf(chat.lastMessage)).toEqual(['step', 'text:You are welcome.']);
  });

  it('plays a client-held chat that posts only its last two messages', async () => {
    const thawed: string[][] = [];
    const server = await open(aiSdkHandler({ agent: inventoryAgent({ thawed }), secret: SECRET }));
    const chat = makeChat(ai, {
      api: server.url,
      id: 'held-2',
      sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
      lastTwo: true,
    });
    await say(chat, server, 'Thaw one');
    await answer(chat, server, partByType(chat, 'tool-AskUserQuestion').toolCallId, { answers: ['HeLa'] });
    await decide(chat, server, partByType(chat, 'tool-thaw_vials').approval.id, true);
    await say(chat, server, 'Thanks');
    expect(partsOf(chat.lastMessage)).toEqual(['step', 'text:You are welcome.']);
    expect(server.exchanges.map((exchange) => exchange.body.messages.length)).toEqual([1, 2, 2, 2]);
    expect(thawed).toEqual([['K562']]);
  });

  it("answers a tool's ctx.ask question and its form through synthetic parts", async () => {
    const counts = newCounts();
    const server = await open(aiSdkHandler({ agent: askingAgent(counts), store: memoryStore() }));
    const chat = chatOn(server, ai);
    await say(chat, server, 'Record a K562 thaw');
    const call = partByType(chat, 'tool-record_thaw');
    const question = partByType(chat, 'tool-AskUserQuestion');
    expect(call.state).toBe('input-available');
    expect(question.toolCallId).toBe('inventory:1');
    expect(question.input.questions[0].header).toBe('Box');

    await answer(chat, server, question.toolCallId, { answers: { Box: 'B2-15' } });
    const form = partOf(chat, 'inventory:2');
    expect(form).toMatchObject({
      type: 'tool-AskUserQuestion',
      state: 'input-available',
      input: { message: 'How many vials?', schema: { type: 'object' } },
    });

    await answer(chat, server, form.toolCallId, { value: { vials: 2 } });
    expect(partOf(chat, call.toolCallId)).toMatchObject({
      state: 'output-available',
      output: { cellLine: 'K562', box: 'B2-15', vials: 2 },
    });
    expect(partsOf(chat.lastMessage).at(-1)).toBe(
      'text:Recorded: {"cellLine":"K562","box":"B2-15","vials":2}',
    );
    expect(counts).toMatchObject({ executions: 1, resumes: 2 });
  });

  it("approves a sub-agent's bubbled approval through its synthetic part", async () => {
    const counts = newCounts();
    const server = await open(aiSdkHandler({ agent: leadAgent(counts), store: memoryStore() }));
    const chat = chatOn(server, ai);
    await say(chat, server, 'Plan tomorrow');
    expect(partByType(chat, 'tool-researcher').state).toBe('input-available');
    const approval = partByType(chat, 'tool-order_medium');
    expect(approval).toMatchObject({
      toolCallId: 'lead/researcher@call_0_0:1',
      state: 'approval-requested',
      input: { medium: 'RPMI-1640' },
      approval: { id: 'lead/researcher@call_0_0:1' },
    });
    await decide(chat, server, approval.approval.id, true);
    expect(counts.orders).toEqual(['RPMI-1640']);
    expect(partByType(chat, 'tool-researcher')).toMatchObject({ state: 'output-available' });
    expect(partsOf(chat.lastMessage).at(-1)).toBe('text:Plan ready. Ordered: {"ordered":"RPMI-1640"}');
  });

  it('reloads mid-pause from GET /:id and answers from the reloaded messages', async () => {
    const thawed: string[][] = [];
    const server = await open(aiSdkHandler({ agent: inventoryAgent({ thawed }), store: memoryStore() }));
    const first = chatOn(server, ai, 'reload');
    await say(first, server, 'Thaw one');
    await answer(first, server, partByType(first, 'tool-AskUserQuestion').toolCallId, { answers: ['K562'] });

    const response = await fetch(`${server.url}/reload`);
    expect(response.status).toBe(200);
    const messages = await response.json();
    expect((await ai.safeValidateUIMessages({ messages })).success).toBe(true);
    const reloaded = chatOn(server, ai, 'reload', messages);
    expect(partsOf(reloaded.lastMessage)).toEqual(partsOf(first.lastMessage));
    await decide(reloaded, server, partByType(reloaded, 'tool-thaw_vials').approval.id, true);
    expect(thawed).toEqual([['K562']]);
    expect(partsOf(reloaded.lastMessage).at(-1)).toBe('text:Done: {"thawed":["K562"],"count":1}');
  });

  it('never stops the turn when the front end stops (DESIGN §20): the run goes on, and a reload shows it', async () => {
    const thawed: string[][] = [];
    const server = await open(
      aiSdkHandler({ agent: inventoryAgent({ thawed, delayMs: 400 }), store: memoryStore() }),
    );
    const chat = chatOn(server, ai, 'stopped');
    const sending = chat.sendMessage({ text: 'Thaw one' });
    while (server.exchanges.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await chat.stop();
    await sending;
    // The turn plays on after the stream closed: it reaches its question and is stored.
    const stored = async (): Promise<UIMessage[]> => (await fetch(`${server.url}/stopped`)).json();
    await expect
      .poll(async () => (await stored()).map((message) => message.role), { timeout: 5000 })
      .toEqual(['user', 'assistant']);
    const messages = await stored();
    const reloaded = chatOn(server, ai, 'stopped', messages);
    expect(partByType(reloaded, 'tool-AskUserQuestion')).toMatchObject({ state: 'input-available' });
  });
});
