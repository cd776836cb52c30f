/**
 * `aiSdkHandler` under what a real front end rarely does but a network does: a resume sent again,
 * two resumes at once, an answer that arrives after its question expired, a model that fails.
 * Requests are raw POSTs of the bodies `useChat` sends; `ai`'s own stream reader rebuilds what the
 * client would show, and every chunk must fit `ai@6.0.0`'s schemas.
 */
import { type AgentEvent, defineAgent, ModelError, memoryStore } from '@turnkit/core';
import type { UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryReplayStore } from '../src/http/public.js';
import { aiSdkHandler } from '../src/protocols/ai-sdk-ui/index.js';
import { assemble, finishOf, postChat, type RawAnswer, userMessage, withPart } from './helpers/ai-sdk-raw.js';
import { inventoryAgent, type Listening, listen, SECRET } from './http-fixtures.js';

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  open.push(server);
  return server.url;
}

/** A chat driven by raw POSTs: the messages a client would hold, and how to send each request. */
function rawChat(url: string, id: string) {
  const user = userMessage('Thaw one');
  return {
    user,
    start: () => postChat(url, { id, messages: [user], trigger: 'submit-message' }),
    /** The body that continues `assistant`. */
    body: (assistant: UIMessage) => ({
      id,
      messages: [user, assistant],
      trigger: 'submit-message',
      messageId: assistant.id,
    }),
  };
}

/** The question of a paused turn, answered as addToolOutput would. */
async function answered(first: RawAnswer, answers: unknown): Promise<UIMessage> {
  const assistant = await assemble(first.chunks);
  const { toolCallId } = finishOf(first).pending[0]!;
  return withPart(assistant, toolCallId, { state: 'output-available', output: { answers } });
}

/** The approval of a paused turn, decided as addToolApprovalResponse would. */
async function decided(previous: UIMessage, answer: RawAnswer, approved: boolean): Promise<UIMessage> {
  const assistant = await assemble(answer.chunks, previous);
  const { id, toolCallId } = finishOf(answer).pending[0]!;
  return withPart(assistant, toolCallId, { state: 'approval-responded', approval: { id, approved } });
}

describe('aiSdkHandler: replays', () => {
  it('answers a resume sent again with the run as it is, sending the client what it missed', async () => {
    const thawed: string[][] = [];
    const url = await serve(aiSdkHandler({ agent: inventoryAgent({ thawed }), store: memoryStore() }));
    const chat = rawChat(url, 'replay');
    const questionAsked = await answered(await chat.start(), ['K562']);
    const approvalAsked = await postChat(url, chat.body(questionAsked));
    const approvedMessage = await decided(questionAsked, approvalAsked, true);
    const done = await postChat(url, chat.body(approvedMessage));
    expect(finishOf(done).status).toBe('completed');

    // The same approval again: nothing runs twice, and the stream catches the client up.
    const again = await postChat(url, chat.body(approvedMessage));

    expect(again.status).toBe(200);
    expect(finishOf(again).status).toBe('completed');
    const caughtUp = await assemble(again.chunks, approvedMessage);
    expect(caughtUp.parts.at(-1)).toMatchObject({
      type: 'text',
      text: 'Done: {"thawed":["K562"],"count":1}',
    });
    expect(thawed).toEqual([['K562']]);

    // The first answer again: the two later steps are sent whole.
    const first = await postChat(url, chat.body(questionAsked));

    const rebuilt = await assemble(first.chunks, questionAsked);
    expect(rebuilt.parts.map((part) => ('state' in part ? `${part.type}/${part.state}` : part.type))).toEqual(
      [
        'step-start',
        'text/done',
        'tool-AskUserQuestion/output-available',
        'step-start',
        'text/done',
        'tool-thaw_vials/output-available',
        'step-start',
        'text/done',
      ],
    );
    expect(thawed).toEqual([['K562']]);
  });

  it("refuses a client-held snapshot used twice with replay: 'reject' (409)", async () => {
    const thawed: string[][] = [];
    const handler = aiSdkHandler({
      agent: inventoryAgent({ thawed }),
      secret: SECRET,
      replay: 'reject',
      replayStore: memoryReplayStore(),
    });
    const url = await serve(handler);
    const chat = rawChat(url, 'held-replay');
    const questionAsked = await answered(await chat.start(), ['K562']);
    const approvalAsked = await postChat(url, chat.body(questionAsked));
    const approvedMessage = await decided(questionAsked, approvalAsked, true);
    expect(finishOf(await postChat(url, chat.body(approvedMessage))).status).toBe('completed');
    const again = await postChat(url, chat.body(approvedMessage));

    expect(again.status).toBe(409);
    expect(again.problem.code).toBe('CONFLICT');
    expect(thawed).toEqual([['K562']]);
  });
});

describe('aiSdkHandler: two resumes at once (store mode)', () => {
  async function pausedOnApproval(thawed: string[][]) {
    const url = await serve(
      aiSdkHandler({ agent: inventoryAgent({ thawed, delayMs: 100 }), store: memoryStore() }),
    );
    const chat = rawChat(url, 'race');
    const questionAsked = await answered(await chat.start(), ['K562']);
    const approvalAsked = await postChat(url, chat.body(questionAsked));
    return { url, chat, questionAsked, approvalAsked };
  }

  it('lets one of two identical resumes continue; the other reads the run (idempotent)', async () => {
    const thawed: string[][] = [];
    const { url, chat, questionAsked, approvalAsked } = await pausedOnApproval(thawed);
    const approvedMessage = await decided(questionAsked, approvalAsked, true);
    const results = await Promise.all([0, 1].map(() => postChat(url, chat.body(approvedMessage))));
    const statuses = results.map((result) =>
      result.status === 200 ? finishOf(result).status : result.status,
    );
    // The loser finds the same decision already applied: it reads the run (running, or done).
    expect(statuses).toContain('completed');
    expect(statuses.every((status) => status === 'completed' || status === 'running')).toBe(true);
    expect(thawed).toEqual([['K562']]);
  });

  it('lets one of two different decisions continue; the other gets 409 CONFLICT', async () => {
    const thawed: string[][] = [];
    const { url, chat, questionAsked, approvalAsked } = await pausedOnApproval(thawed);
    const approve = await decided(questionAsked, approvalAsked, true);
    const reject = await decided(questionAsked, approvalAsked, false);
    const results = await Promise.all([postChat(url, chat.body(approve)), postChat(url, chat.body(reject))]);
    const winners = results.filter((result) => result.status === 200);
    const losers = results.filter((result) => result.status === 409);
    expect(winners).toHaveLength(1);
    expect(losers.map((result) => result.problem.code)).toEqual(['CONFLICT']);
    expect(finishOf(winners[0]!).status).toBe('completed');
    expect(thawed.length).toBe(winners[0] === results[0] ? 1 : 0);
  });
});

describe('aiSdkHandler: an answer after expiry', () => {
  it.each([
    ['store', { store: memoryStore() }],
    ['client-held', { secret: SECRET }],
  ])('resolves the question as timed out and the run goes on (%s mode)', async (_mode, storage) => {
    let clock = new Date('2026-05-01T09:00:00Z');
    const agent = inventoryAgent({ questionTimeoutMs: 60_000 });
    const url = await serve(aiSdkHandler({ agent, ...storage, now: () => clock }));
    const chat = rawChat(url, 'expiry');
    const started = await chat.start();
    expect(finishOf(started).pending[0]!.expiresAt).toBe('2026-05-01T09:01:00.000Z');
    const late = await answered(started, ['K562']);
    clock = new Date('2026-05-01T09:05:00Z');
    const answer = await postChat(url, chat.body(late));
    expect(answer.status).toBe(200);
    const questionPart = finishOf(started).pending[0]!.toolCallId;
    expect(answer.chunks).toContainEqual({
      type: 'tool-output-error',
      toolCallId: questionPart,
      errorText: expect.stringContaining('expired before the answer arrived'),
    });
    // The model was told question_timeout and went on to ask for the approval.
    expect(finishOf(answer)).toMatchObject({ status: 'needs_input', pending: [{ kind: 'approval' }] });
    const shown = await assemble(answer.chunks, late);
    expect(
      shown.parts.find((part) => 'toolCallId' in part && part.toolCallId === questionPart),
    ).toMatchObject({
      state: 'output-error',
    });
  });
});

describe('aiSdkHandler: failures and observers', () => {
  it('ends a turn whose model fails with finish (status failed) and an error chunk of its public message', async () => {
    const failing = defineAgent({
      name: 'failing',
      instructions: 'x',
      model: {
        name: 'down',
        generate: async () => {
          throw new ModelError('upstream said: secret-key-123 is invalid', {
            status: 401,
            publicMessage: 'The model provider refused the request (401).',
          });
        },
      },
      tools: [],
    });
    const reported: unknown[] = [];
    const events: AgentEvent[] = [];
    const url = await serve(
      aiSdkHandler({
        agent: failing,
        store: memoryStore(),
        onError: (error) => reported.push(error),
        onEvent: (event) => events.push(event),
      }),
    );
    const answer = await postChat(url, { id: 'fails', messages: [userMessage('Hi')] });
    expect(answer.status).toBe(200);
    expect(finishOf(answer).status).toBe('failed');
    expect(answer.chunks.at(-1)).toEqual({
      type: 'error',
      errorText: 'The model provider refused the request (401).',
    });
    expect(JSON.stringify(answer.chunks)).not.toContain('secret-key-123');
    expect(reported).toHaveLength(1);
    expect(events.map((event) => event.type)).toContain('turn_failed');
  });
});
