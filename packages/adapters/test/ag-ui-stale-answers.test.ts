/**
 * A provider that reuses a tool-call id (issue 26, low): the client's history still holds the tool
 * message that answered the first call with that id, and it must not answer the new question that
 * reuses it. A tool message answers the interrupt it was sent for, not every call with its id.
 */
import { askUserQuestion, defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { client, closeServers, post, serveAgUi } from './helpers/ag-ui-fixtures.js';

afterEach(closeServers);

const medium = { question: 'Which medium?', header: 'Medium', options: ['RPMI', 'DMEM'] };
const serum = { question: 'Which serum?', header: 'Serum', options: ['FBS', 'HI-FBS'] };

/** Asks two questions in a row under the same tool-call id, as some providers number calls per turn. */
function reusingAgent() {
  return defineAgent({
    name: 'media',
    instructions: 'You pick media.',
    model: scriptedModel([
      { toolCalls: [{ id: 'call_0', name: 'AskUserQuestion', arguments: { questions: [medium] } }] },
      { toolCalls: [{ id: 'call_0', name: 'AskUserQuestion', arguments: { questions: [serum] } }] },
      (request) => `Chosen: ${request.messages.filter((message) => message.role === 'tool').at(-1)?.content}`,
    ]),
    tools: [askUserQuestion()],
  });
}

describe('agUiHandler: a tool message answers its own interrupt only', () => {
  it('an old tool message for a reused call id does not answer the new question', async () => {
    const url = await serveAgUi({ agent: reusingAgent(), store: memoryStore() });
    const first = client(url, 'thread-reuse');
    await first.run();
    const [mediumAsk] = first.agent.pendingInterrupts;
    expect(mediumAsk!.toolCallId).toBe('call_0');

    const answer = { id: 'tm1', role: 'tool' as const, toolCallId: 'call_0', content: 'RPMI' };
    const second = client(url, 'thread-reuse', [...first.agent.messages, answer]);
    await second.run();
    const [serumAsk] = second.agent.pendingInterrupts;
    expect(serumAsk).toMatchObject({ toolCallId: 'call_0', message: 'Which serum?' });
    expect(serumAsk!.id).not.toBe(mediumAsk!.id);

    // A reconnect posts the conversation as the server sent it: the medium's answer is in it.
    const reconnect = await post(url, {
      threadId: 'thread-reuse',
      runId: 'r3',
      messages: second.agent.messages,
    });
    expect(reconnect.status).toBe(200);
    const finished = reconnect.events.find((event) => event.type === 'RUN_FINISHED');
    expect(finished.outcome).toMatchObject({ type: 'interrupt' });
    expect(finished.outcome.interrupts.map((interrupt: { id: string }) => interrupt.id)).toEqual([
      serumAsk!.id,
    ]);

    // The serum's own answer, after the question it answers, does answer it.
    const serumAnswer = { id: 'tm2', role: 'tool' as const, toolCallId: 'call_0', content: 'FBS' };
    const done = await post(url, {
      threadId: 'thread-reuse',
      runId: 'r4',
      messages: [...second.agent.messages, serumAnswer],
    });
    const text = done.events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    expect(text).toContain('FBS');
  });
});
