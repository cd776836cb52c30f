import { ModelError, TurnkitError } from '@turnkit/core';
import { describe, expect, it, vi } from 'vitest';
import { openAIModel } from '../src/models/openai/openai.js';
import {
  chunk,
  completion,
  sendJson,
  sendSse,
  startChatServer,
  startSse,
  usageChunk,
} from './helpers/chat-server.js';
import {
  abortedCall,
  modelError,
  OPENAI_MAJORS,
  type OpenAIMajor,
  request,
  useChatServer,
} from './helpers/openai-fixtures.js';

const chat = useChatServer();

describe.each(OPENAI_MAJORS)('openai $major', (major: OpenAIMajor) => {
  const model = (options: Parameters<typeof chat.model>[0] = {}) => chat.model(options, major);

  describe('openAIModel errors', () => {
    it('maps 401 to a ModelError telling to check OPENAI_API_KEY', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 401, {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
        });
      const error = await modelError(model().generate(request()));
      expect(error.status).toBe(401);
      expect(error.message).toContain('OPENAI_API_KEY');
      expect(error.message).toContain('Incorrect API key provided');
    });

    it('maps 404 to a ModelError naming the model and the baseURL', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 404, { error: { message: 'The model `test-model` does not exist' } });
      const error = await modelError(model().generate(request()));
      expect(error.status).toBe(404);
      expect(error.message).toContain('"test-model"');
      expect(error.message).toContain(chat.server.baseURL);
    });

    it('retries 429 with the client backoff, then reports the rate limit', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '5' });
      const error = await modelError(model({ maxRetries: 2 }).generate(request()));
      expect(chat.server.requests).toHaveLength(3);
      expect(error.status).toBe(429);
      expect(error.message).toMatch(/Rate limited \(429\) after 3 attempts/);
    });

    it('succeeds when a retry after a 500 succeeds', async () => {
      chat.server.respond = (_request, response) =>
        chat.server.requests.length === 1
          ? sendJson(response, 500, { error: { message: 'boom' } }, { 'retry-after-ms': '5' })
          : sendJson(response, 200, completion({ content: 'Recovered' }));
      const result = await model({ maxRetries: 1, stream: false }).generate(request());
      expect(result.message.content).toBe('Recovered');
      expect(chat.server.requests).toHaveLength(2);
    });

    it('maps a 500 to a ModelError with its status', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 500, { error: { message: 'upstream exploded' } });
      const error = await modelError(model().generate(request()));
      expect(error.status).toBe(500);
      expect(error.message).toContain('upstream exploded');
      expect(error.message).toContain('retry the turn later');
    });

    it('maps a refused connection to a ModelError naming the baseURL', async () => {
      const baseURL = chat.server.baseURL;
      await chat.server.close();
      const error = await modelError(model({ baseURL }).generate(request()));
      expect(error.status).toBeUndefined();
      expect(error.message).toContain(`Could not reach ${baseURL}`);
      chat.server = await startChatServer();
    });

    it('maps a timeout to a ModelError that suggests raising timeoutMs', async () => {
      chat.server.respond = () => undefined;
      const error = await modelError(model({ timeoutMs: 150 }).generate(request()));
      expect(error.message).toContain('within 150 ms');
    });

    it('rejects a completion without choices as malformed', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 200, { id: 'x', object: 'chat.completion' });
      const error = await modelError(model({ stream: false }).generate(request()));
      expect(error.message).toContain('malformed');
      expect(error.message).toContain('no choices');
    });

    it('rejects a body that is not JSON as malformed', async () => {
      chat.server.respond = (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"choices": [');
      };
      const error = await modelError(model({ stream: false }).generate(request()));
      expect(error.message).toContain('malformed');
    });

    it('rejects a stream that ends without any choice as malformed', async () => {
      chat.server.respond = (_request, response) => sendSse(response, [usageChunk(1, 0)]);
      const error = await modelError(model().generate(request()));
      expect(error.message).toContain('without any choice');
    });

    it('rejects a stream with an unreadable event as malformed', async () => {
      chat.server.respond = (_request, response) =>
        sendSse(response, [chunk({ content: 'a' }), '{"choices": [']);
      const error = await modelError(model().generate(request()));
      expect(error.message).toContain('malformed');
    });

    it('rejects a streamed tool call that never gets a name', async () => {
      chat.server.respond = (_request, response) =>
        sendSse(response, [
          chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { arguments: '{}' } }] }),
        ]);
      const error = await modelError(model().generate(request()));
      expect(error.message).toContain('no function name');
    });

    it('refuses to start without an API key, saying where to put one', () => {
      vi.stubEnv('OPENAI_API_KEY', '');
      try {
        expect(() => openAIModel({ model: 'test-model', baseURL: chat.server.baseURL })).toThrow(
          TurnkitError,
        );
        expect(() => openAIModel({ model: 'test-model', baseURL: chat.server.baseURL })).toThrow(
          /OPENAI_API_KEY/,
        );
      } finally {
        vi.unstubAllEnvs();
      }
    });
  });

  describe('openAIModel abort', () => {
    it('rejects promptly with an AbortError when the signal aborts mid-stream, and sends no later delta', async () => {
      const controller = new AbortController();
      chat.server.respond = (_request, response) => {
        const sse = startSse(response);
        sse.send(chunk({ content: 'Partial' }));
        // The abort comes while the stream is open; a chunk already in flight must not reach onDelta.
        setTimeout(() => {
          controller.abort();
          sse.send(chunk({ content: 'Late' }));
        }, 30);
      };
      const deltas: string[] = [];
      const started = Date.now();
      const error = await abortedCall(
        model().generate(request({ signal: controller.signal, onDelta: (text) => deltas.push(text) })),
      );
      expect(error.name).toBe('AbortError');
      expect(error).not.toBeInstanceOf(ModelError);
      expect(Date.now() - started).toBeLessThan(2_000);
      await chat.server.clientClosed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(deltas).toEqual(['Partial']);
    });

    it('rejects with an AbortError without sending anything when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await abortedCall(model().generate(request({ signal: controller.signal })));
      expect(error.name).toBe('AbortError');
      expect(chat.server.requests).toHaveLength(0);
    });

    it('reports an abort during the retry backoff as an abort, not a failure', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 503, { error: { message: 'busy' } }, { 'retry-after': '3' });
      const controller = new AbortController();
      const started = Date.now();
      const call = model({ maxRetries: 2 }).generate(request({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 100);
      const error = await abortedCall(call);
      expect(error.name).toBe('AbortError');
      expect(Date.now() - started).toBeLessThan(2_000);
    });
  });
});
