/**
 * `aiSdkModel` on real AI SDK 6 providers against loopback servers — `@ai-sdk/openai-compatible`
 * on a chat-completions fake, `@ai-sdk/anthropic` on a Messages API fake speaking its SSE events —
 * and on `MockLanguageModelV3`: each pauses on a question here and resumes in ANOTHER Node process
 * with a fresh model instance, the tool-call id intact on both sides of the wire. Then the providers'
 * real failures: refused keys, rate limits, overload in and before the stream, and an abort.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type ChatMessage, ModelError, runTurn, type TurnResult } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import {
  ASK_CALL_ID,
  answerChat,
  answerMessages,
  anthropicEvents,
  messageStart,
  type ProviderKind,
  providerAgent,
  QUESTION_ARGUMENTS,
} from './helpers/ai-sdk-providers.js';
import { bundleFixture, runChild } from './helpers/bundled-child.js';
import { type ChatServer, chunk, sendJson, startChatServer, startSse } from './helpers/chat-server.js';

let server: ChatServer;
let bundle: string;
beforeAll(async () => {
  [server, bundle] = await Promise.all([startChatServer(), bundleFixture('ai-sdk-resume')]);
});
afterAll(() => server.close());

const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
const compatible = (options: { maxRetries?: number } = {}) =>
  aiSdkModel(
    createOpenAICompatible({ name: 'lab', baseURL: server.baseURL, apiKey: 'sk-test-secret' }).chatModel(
      'lab-1',
    ),
    options,
  );
const anthropic = (options: { maxRetries?: number } = {}) =>
  aiSdkModel(createAnthropic({ baseURL: server.baseURL, apiKey: 'sk-ant-secret' })('claude-test-1'), {
    maxOutputTokens: 64,
    ...options,
  });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as ModelError,
  );

describe.each<ProviderKind>(['mock', 'openai-compatible', 'anthropic'])('aiSdkModel on %s', (kind) => {
  it('pauses here and resumes in another Node process with a fresh model, the call id kept', async () => {
    server.requests.length = 0;
    server.respond = kind === 'anthropic' ? answerMessages : answerChat;
    const paused = await runTurn(providerAgent(kind, server.baseURL), { input: 'Thaw one vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({ toolCallId: ASK_CALL_ID[kind], kind: 'question' });
    expect(paused.messages[1]).toMatchObject({
      tool_calls: [
        { id: ASK_CALL_ID[kind], function: { name: 'AskUserQuestion', arguments: QUESTION_ARGUMENTS } },
      ],
    });
    if (kind !== 'mock') expect(paused.usage).toMatchObject({ inputTokens: 20, outputTokens: 8 });

    const file = join(await mkdtemp(join(tmpdir(), 'turnkit-ai-sdk-')), 'paused.json');
    writeFileSync(file, paused.snapshot);
    const { pid, result } = await runChild<{ pid: number; result: TurnResult }>(bundle, [
      kind,
      server.baseURL,
      file,
      'HeLa',
    ]);

    expect(pid).not.toBe(process.pid);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Noted: {"answers":{"Line":"HeLa"}}');
    expect(result.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: ASK_CALL_ID[kind],
      content: '{"answers":{"Line":"HeLa"}}',
    });
    if (kind === 'openai-compatible') {
      const sent = server.requests[1]?.body.messages as unknown[];
      expect(sent.slice(2)).toMatchObject([
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_ask_1',
              type: 'function',
              function: { name: 'AskUserQuestion', arguments: QUESTION_ARGUMENTS },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_ask_1', content: '{"answers":{"Line":"HeLa"}}' },
      ]);
    }
    if (kind === 'anthropic') {
      const sent = server.requests[1]?.body.messages as unknown[];
      expect(sent.slice(1)).toMatchObject([
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'One moment.' },
            {
              type: 'tool_use',
              id: 'toolu_ask_1',
              name: 'AskUserQuestion',
              input: JSON.parse(QUESTION_ARGUMENTS),
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_ask_1', content: '{"answers":{"Line":"HeLa"}}' },
          ],
        },
      ]);
      expect(server.requests[1]?.body).toMatchObject({
        model: 'claude-test-1',
        max_tokens: 256,
        stream: true,
      });
    }
  });
});

describe('aiSdkModel on real providers: failures', () => {
  it('openai-compatible: a refused key is a ModelError whose public message hides the key, URL and model', async () => {
    server.respond = (_request, response) =>
      sendJson(response, 401, {
        error: { message: 'Incorrect API key provided: sk-tes***cret', type: 'invalid_request_error' },
      });
    const error = await failure(compatible().generate({ messages, tools: [], onDelta: () => undefined }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided: sk-tes***cret');
    expect(error.message).toContain(`${server.baseURL}/chat/completions`);
    expect(error.publicMessage).toBe('The model provider refused the credentials (401).');
  });

  it('openai-compatible: retries a 429 after the server’s retry-after-ms, then answers', async () => {
    server.requests.length = 0;
    server.respond = (request, response) => {
      if (server.requests.length < 3) {
        sendJson(response, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '5' });
        return;
      }
      answerChat({ ...request, body: { messages: [{ role: 'tool', content: 'ok' }] } }, response);
    };
    const result = await compatible().generate({ messages, tools: [], onDelta: () => undefined });
    expect(result.message.content).toBe('Noted: ok');
    expect(server.requests).toHaveLength(3);
  });

  it('anthropic: an overloaded API (529) is retried, then reported with its status', async () => {
    server.requests.length = 0;
    server.respond = (_request, response) =>
      sendJson(
        response,
        529,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        {
          'retry-after-ms': '1',
        },
      );
    const error = await failure(
      anthropic({ maxRetries: 1 }).generate({ messages, tools: [], onDelta: () => undefined }),
    );
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({
      status: 529,
      publicMessage: 'The model provider failed (529). Retry the turn later.',
    });
    expect(error.message).toMatch(/^anthropic\.messages failed \(529\) after 2 attempts: Overloaded/);
  });

  it('anthropic: an error event in the stream is a ModelError of its type’s status, without a finish', async () => {
    server.requests.length = 0;
    server.respond = (request, response) => {
      const event = anthropicEvents(response);
      event('message_start', messageStart(String(request.body.model)));
      event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      response.end();
    };
    const error = await failure(
      anthropic({ maxRetries: 0 }).generate({ messages, tools: [], onDelta: () => undefined }),
    );
    expect(error).toMatchObject({ status: 529 });
    expect(error.message).toContain('anthropic.messages reported an error in the stream (overloaded_error)');
  });

  it('openai-compatible: an abort mid-stream rejects with an AbortError and closes the connection', async () => {
    server.respond = (_request, response) => {
      startSse(response).send(chunk({ role: 'assistant', content: 'Thinking' }));
    };
    const controller = new AbortController();
    const call = compatible().generate({
      messages,
      tools: [],
      signal: controller.signal,
      onDelta: () => controller.abort(),
    });
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await server.clientClosed;
  });
});
