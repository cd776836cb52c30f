/**
 * `aiSdkHandler` at its door: malformed bodies and wrong requests are 4xx problems that say what
 * to send instead (never a 500), access goes through `token` and `authorize` (route `aiSdk`, the
 * chat id as run id, principals binding chats), and a client-held snapshot cannot be edited or
 * moved to another chat.
 */
import { memoryStore } from '@turnkit/core';
import type { UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../src/http/public.js';
import { type AiSdkHandlerOptions, aiSdkHandler } from '../src/protocols/ai-sdk-ui/index.js';
import { assemble, finishOf, postChat, userMessage, withPart } from './helpers/ai-sdk-raw.js';
import { inventoryAgent, jsonRequest, type Listening, listen, SECRET } from './http-fixtures.js';

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<AiSdkHandlerOptions> = {}): Promise<string> {
  const server = await listen(aiSdkHandler({ agent: inventoryAgent(), store: memoryStore(), ...options }));
  open.push(server);
  return server.url;
}

const start = (id: string, text = 'Thaw one') => ({
  id,
  messages: [userMessage(text)],
  trigger: 'submit-message',
});

/** Starts chat `id` and returns the body that answers its question with `output` (as addToolOutput). */
async function answerBody(url: string, id: string, fields: Record<string, unknown>, headers = {}) {
  const first = await postChat(url, start(id), headers);
  const assistant = await assemble(first.chunks);
  const answered = withPart(assistant, finishOf(first).pending[0]!.toolCallId, fields);
  return { id, messages: [userMessage('Thaw one'), answered], trigger: 'submit-message' };
}

describe('aiSdkHandler: malformed requests are 4xx problems', () => {
  const assistantOnly: UIMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] };
  it.each([
    ['not JSON', '{"id":', 400, 'BAD_REQUEST'],
    ['an empty object', {}, 400, 'BAD_REQUEST'],
    ['a chat id with a slash', start('a/b'), 400, 'BAD_REQUEST'],
    ['a chat id starting with a dot', start('.hidden'), 400, 'BAD_REQUEST'],
    ['no messages', { id: 'c1', messages: [] }, 400, 'BAD_REQUEST'],
    ['messages that are not a list', { id: 'c1', messages: 'hi' }, 400, 'BAD_REQUEST'],
    [
      'a part without a type',
      { id: 'c1', messages: [{ id: 'u', role: 'user', parts: [{ text: 'x' }] }] },
      400,
      'BAD_REQUEST',
    ],
    [
      'a user message without text',
      { id: 'c1', messages: [{ id: 'u', role: 'user', parts: [] }] },
      400,
      'BAD_REQUEST',
    ],
    [
      'a system message last',
      { id: 'c1', messages: [{ id: 's', role: 'system', parts: [{ type: 'text', text: 'x' }] }] },
      400,
      'BAD_REQUEST',
    ],
    ['regenerate-message', { ...start('c1'), trigger: 'regenerate-message' }, 400, 'BAD_REQUEST'],
    ['an unknown trigger', { ...start('c1'), trigger: 'resume' }, 400, 'BAD_REQUEST'],
    [
      'a continuation of an unknown chat',
      { id: 'nope', messages: [userMessage('x'), assistantOnly] },
      404,
      'RUN_NOT_FOUND',
    ],
  ])('refuses %s', async (_what, body, status, code) => {
    const url = await serve();
    const answer = await postChat(url, body);
    expect(answer.status).toBe(status);
    expect(answer.problem).toMatchObject({ status, code });
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
  });

  it('refuses a POST that is not JSON (415) and a body over maxBodyBytes (413)', async () => {
    const url = await serve({ maxBodyBytes: 200 });
    const text = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(text.status).toBe(415);
    expect((await postChat(url, start('c1', 'x'.repeat(300)))).status).toBe(413);
  });

  it.each([
    [
      'a question output without answers',
      { state: 'output-available', output: { labels: ['K562'] } },
      400,
      'BAD_REQUEST',
    ],
    [
      'answers with a __proto__ key',
      { state: 'output-available', output: JSON.parse('{"answers":{"__proto__":"x"}}') },
      400,
      'BAD_REQUEST',
    ],
    [
      'a label that is not an option',
      { state: 'output-available', output: { answers: ['Jurkat'] } },
      422,
      'ANSWER_INVALID',
    ],
    [
      'answers of the wrong type',
      { state: 'output-available', output: { answers: 42 } },
      422,
      'ANSWER_INVALID',
    ],
  ])('refuses %s, and the run still waits', async (_what, fields, status, code) => {
    const url = await serve();
    const answer = await postChat(url, await answerBody(url, 'bad-answer', fields));
    expect(answer.status).toBe(status);
    expect(answer.problem.code).toBe(code);
    const messages = await (await fetch(`${url}/bad-answer`)).json();
    expect(messages.at(-1).metadata.turnkit.status).toBe('needs_input');
  });

  it('refuses a continuation that answers nothing (400), saying how to answer', async () => {
    const url = await serve();
    const answer = await postChat(url, await answerBody(url, 'nothing', {}));
    expect(answer.status).toBe(400);
    expect(answer.problem.detail).toContain('addToolOutput');
  });
});

describe('aiSdkHandler: routes', () => {
  it('answers 204 on GET /:id/stream, 404 problems on unknown chats and routes', async () => {
    const url = await serve({ basePath: '/api/chat' });
    expect((await fetch(`${url}/api/chat/c1/stream`)).status).toBe(204);
    const unknown = await fetch(`${url}/api/chat/unknown`);
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, 'RUN_NOT_FOUND']);
    const route = await fetch(`${url}/elsewhere`);
    expect([route.status, (await route.json()).code]).toEqual([404, 'NOT_FOUND']);
    expect((await fetch(`${url}/api/chat/%61bc/../x`)).status).toBe(404);
  });

  it('keeps no chats in client-held mode: GET /:id is 404', async () => {
    const url = await serve({ store: undefined, secret: SECRET });
    const response = await fetch(`${url}/c1`);
    expect(response.status).toBe(404);
    expect((await response.json()).detail).toContain('client-held');
  });

  it('answers a CORS preflight when asked to', async () => {
    const url = await serve({ cors: { origins: ['https://app.example'] } });
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});

describe('aiSdkHandler: access', () => {
  it('needs the bearer token before anything else', async () => {
    const url = await serve({ token: 'chat-token' });
    expect((await postChat(url, start('c1'))).status).toBe(401);
    expect((await postChat(url, '{broken')).status).toBe(401);
    expect((await postChat(url, start('c1'), { authorization: 'Bearer chat-token' })).status).toBe(200);
  });

  it('asks authorize about route aiSdk with the chat id; a principal binds the chat to its caller', async () => {
    const routes: RouteInfo[] = [];
    const url = await serve({
      authorize: (request, route) => {
        routes.push(route);
        const user = request.headers.get('x-user');
        return user ? { principal: user } : false;
      },
    });
    const alice = { 'x-user': 'alice' };
    const bob = { 'x-user': 'bob' };
    expect((await postChat(url, start('owned'))).status).toBe(401);
    // An unreadable body is refused only after access is: a stranger learns nothing from it.
    expect((await postChat(url, '{broken')).status).toBe(401);
    expect(routes.at(-1)).toEqual({ name: 'aiSdk' });
    expect((await postChat(url, '{broken', { 'x-user': 'alice' })).status).toBe(400);
    const body = await answerBody(
      url,
      'owned',
      { state: 'output-available', output: { answers: ['K562'] } },
      alice,
    );
    expect(routes.at(-1)).toEqual({ name: 'aiSdk', runId: 'owned' });

    // Bob can neither read, answer nor write into Alice's chat: for him it does not exist.
    expect((await fetch(`${url}/owned`, { headers: bob })).status).toBe(404);
    expect((await postChat(url, body, bob)).problem.code).toBe('RUN_NOT_FOUND');
    expect((await postChat(url, start('owned', 'Mine now'), bob)).problem.code).toBe('RUN_NOT_FOUND');
    expect(finishOf(await postChat(url, body, alice)).pending[0]!.kind).toBe('approval');
    expect((await fetch(`${url}/owned`, { headers: alice })).status).toBe(200);
  });
});

describe('aiSdkHandler: client-held snapshots', () => {
  async function heldBody(url: string, id: string) {
    return answerBody(url, id, { state: 'output-available', output: { answers: ['K562'] } });
  }

  it('refuses an edited snapshot (403) and a snapshot moved to another chat (400)', async () => {
    const url = await serve({ store: undefined, secret: SECRET });
    const body = await heldBody(url, 'held');
    const assistant = body.messages[1]!;
    const snapshot: string = (assistant.metadata as { turnkit: { snapshot: string } }).turnkit.snapshot;
    const edited = snapshot.replace('Thaw one', 'Thaw ten');
    expect(edited).not.toBe(snapshot);
    const tampered = {
      ...body,
      messages: [body.messages[0], { ...assistant, metadata: { turnkit: { snapshot: edited } } }],
    };
    const refused = await postChat(url, tampered);
    expect([refused.status, refused.problem.code]).toEqual([403, 'SNAPSHOT_TAMPERED']);
    const moved = await postChat(url, { ...body, id: 'another' });
    expect([moved.status, moved.problem.code]).toEqual([400, 'BAD_REQUEST']);
    expect(moved.problem.detail).toContain('not to chat another');
    const notText = {
      ...body,
      messages: [body.messages[0], { ...assistant, metadata: { turnkit: { snapshot: 42 } } }],
    };
    expect((await postChat(url, notText)).status).toBe(400);
    expect((await postChat(url, body)).status).toBe(200);
  });

  it('is built only with a signing secret of at least 32 characters', () => {
    expect(() => aiSdkHandler({ agent: inventoryAgent() })).toThrow(/secret/);
    expect(() => aiSdkHandler({ agent: inventoryAgent(), secret: 'short' })).toThrow(/32/);
  });

  it('serves a Request built in-process too (no server needed)', async () => {
    const handler = aiSdkHandler({ agent: inventoryAgent(), store: memoryStore(), basePath: '/chat' });
    const response = await handler(jsonRequest('POST', '/chat', start('inproc')));
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(await response.text()).toMatch(/data: \[DONE\]\n\n$/);
  });
});
