/**
 * The real failures of real providers of both AI SDK lines through `aiSdkModel`, against loopback
 * servers: refused keys, rate limits, a cut stream, an abort (`@ai-sdk/openai` 3 and 4,
 * `@ai-sdk/openai-compatible` 2 on a chat-completions fake); overload before and in the stream
 * (`@ai-sdk/anthropic` 3 and 4 on a Messages API fake). Each kind gets its own server, so an abort
 * seen by one cannot pass for another's.
 */
import { type ChatMessage, ModelError } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import {
  answerChat,
  anthropicEvents,
  languageModel,
  messageStart,
  type ProviderKind,
} from './helpers/ai-sdk-providers.js';
import { type ChatServer, chunk, sendJson, startChatServer, startSse } from './helpers/chat-server.js';

const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];

/**
 * What a stream cut after some text becomes, per provider: AI SDK 7 providers end it with finish
 * reason `interrupted`, `@ai-sdk/anthropic@3` sends no finish, `@ai-sdk/openai-compatible@2` an error
 * part — each a failure; only `@ai-sdk/openai@3` ends it with finish reason `other`, which cannot be
 * told from a whole answer (null: the text passes).
 */
const CUT_STREAM: Partial<Record<ProviderKind, RegExp | null>> = {
  'openai-compatible@2':
    /reported an error in the stream for model "lab-model-1": Response stream ended without a finish reason/,
  'openai@3': null,
  'openai@4': /stream for model "gpt-test-1" ended before its finish/,
  'anthropic@3': /stream for model "claude-test-1" ended before its finish/,
  'anthropic@4': /stream for model "claude-test-1" ended before its finish/,
};

/** Checks a call on a cut stream against {@link CUT_STREAM}. */
async function expectCut(kind: ProviderKind, call: Promise<{ message: { content: string | null } }>) {
  const seen = CUT_STREAM[kind];
  if (seen === null) {
    expect((await call).message.content).toBe('Thawing the K5');
    return;
  }
  expect((await failure(call)).message).toMatch(seen!);
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as ModelError,
  );

/** A server of its own for each kind of the suite. */
function useServer() {
  const state = { server: undefined as unknown as ChatServer };
  beforeAll(async () => {
    state.server = await startChatServer();
  });
  afterAll(() => state.server.close());
  return state;
}

describe.each<ProviderKind>(['openai-compatible@2', 'openai@3', 'openai@4'])(
  'aiSdkModel on %s: failures',
  (kind) => {
    const state = useServer();
    const model = (options: { maxRetries?: number } = {}) =>
      aiSdkModel(languageModel(kind, state.server.baseURL), options);

    it('a refused key is a ModelError whose public message hides the key, URL and model', async () => {
      const { server } = state;
      server.respond = (_request, response) =>
        sendJson(response, 401, {
          error: { message: 'Incorrect API key provided: sk-tes***cret', type: 'invalid_request_error' },
        });
      const error = await failure(model().generate({ messages, tools: [], onDelta: () => undefined }));
      expect(error).toBeInstanceOf(ModelError);
      expect(error.status).toBe(401);
      expect(error.message).toContain('Incorrect API key provided: sk-tes***cret');
      expect(error.message).toContain(`${server.baseURL}/chat/completions`);
      expect(error.publicMessage).toBe('The model provider refused the credentials (401).');
    });

    it('retries a 429 after the server’s retry-after-ms, then answers', async () => {
      const { server } = state;
      server.requests.length = 0;
      server.respond = (request, response) => {
        if (server.requests.length < 3) {
          sendJson(response, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '5' });
          return;
        }
        answerChat({ ...request, body: { messages: [{ role: 'tool', content: 'ok' }] } }, response);
      };
      const result = await model().generate({ messages, tools: [], onDelta: () => undefined });
      expect(result.message.content).toBe('Noted: ok');
      expect(server.requests).toHaveLength(3);
    });

    it('a stream cut after some text fails, where the provider can tell', async () => {
      state.server.respond = (_request, response) => {
        startSse(response).send(chunk({ role: 'assistant', content: 'Thawing the K5' }));
        response.end();
      };
      await expectCut(
        kind,
        model({ maxRetries: 0 }).generate({ messages, tools: [], onDelta: () => undefined }),
      );
    });

    it('an abort mid-stream rejects with an AbortError and closes the connection', async () => {
      const { server } = state;
      server.respond = (_request, response) => {
        startSse(response).send(chunk({ role: 'assistant', content: 'Thinking' }));
      };
      const controller = new AbortController();
      const call = model().generate({
        messages,
        tools: [],
        signal: controller.signal,
        onDelta: () => controller.abort(),
      });
      await expect(call).rejects.toMatchObject({ name: 'AbortError' });
      await server.clientClosed;
    });
  },
);

describe.each<ProviderKind>(['anthropic@3', 'anthropic@4'])('aiSdkModel on %s: failures', (kind) => {
  const state = useServer();
  const model = (options: { maxRetries?: number } = {}) =>
    aiSdkModel(languageModel(kind, state.server.baseURL), { maxOutputTokens: 64, ...options });

  it('an overloaded API (529) is retried, then reported with its status', async () => {
    const { server } = state;
    server.requests.length = 0;
    server.respond = (_request, response) =>
      sendJson(
        response,
        529,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        { 'retry-after-ms': '1' },
      );
    const error = await failure(
      model({ maxRetries: 1 }).generate({ messages, tools: [], onDelta: () => undefined }),
    );
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({
      status: 529,
      publicMessage: 'The model provider failed (529). Retry the turn later.',
    });
    expect(error.message).toMatch(/^anthropic\.messages failed \(529\) after 2 attempts: Overloaded/);
  });

  it('an error event in the stream is a ModelError of its type’s status, without a finish', async () => {
    const { server } = state;
    server.respond = (request, response) => {
      const event = anthropicEvents(response);
      event('message_start', messageStart(String(request.body.model)));
      event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      response.end();
    };
    const error = await failure(
      model({ maxRetries: 0 }).generate({ messages, tools: [], onDelta: () => undefined }),
    );
    expect(error).toMatchObject({ status: 529 });
    expect(error.message).toContain('anthropic.messages reported an error in the stream (overloaded_error)');
  });

  it('a stream cut after some text fails', async () => {
    state.server.respond = (request, response) => {
      const event = anthropicEvents(response);
      event('message_start', messageStart(String(request.body.model)));
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Thawing the K5' } });
      response.end();
    };
    await expectCut(
      kind,
      model({ maxRetries: 0 }).generate({ messages, tools: [], onDelta: () => undefined }),
    );
  });
});
