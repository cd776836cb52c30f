/**
 * `openAIModel` for a user who has only openai 7: the adapter's own `import 'openai'` resolves to
 * openai 7 here (mocked to `openai-7`), so the client it makes from `apiKey` / `baseURL`, and the
 * error classes it tests failures against, are openai 7's.
 */
import OpenAI7 from 'openai-7';
import { describe, expect, it, vi } from 'vitest';
import { openAIModel } from '../src/models/openai/openai.js';
import { chunk, sendJson, sendSse, usageChunk } from './helpers/chat-server.js';
import { modelError, request, useChatServer } from './helpers/openai-fixtures.js';

vi.mock('openai', async () => await import('openai-7'));

const chat = useChatServer();

describe('openAIModel on openai 7 alone', () => {
  it('makes an openai 7 client of its options and streams through it', async () => {
    const { default: Imported } = await import('openai');
    expect(Imported).toBe(OpenAI7);
    chat.server.respond = (_request, response) =>
      sendSse(response, [
        chunk({ role: 'assistant', content: 'Three ' }),
        chunk({ content: 'vials.' }, 'stop'),
        usageChunk(9, 2),
      ]);
    const deltas: string[] = [];
    const result = await openAIModel({
      model: 'test-model',
      apiKey: 'k7',
      baseURL: chat.server.baseURL,
    }).generate(request({ onDelta: (text) => deltas.push(text) }));
    expect(deltas).toEqual(['Three ', 'vials.']);
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Three vials.' },
      usage: { inputTokens: 9, outputTokens: 2 },
    });
    expect(chat.server.requests[0]?.headers.authorization).toBe('Bearer k7');
    expect(chat.server.requests[0]?.headers['user-agent']).toMatch(/OpenAI\/JS 7\./);
  });

  it('maps openai 7’s errors to ModelError with the status', async () => {
    chat.server.respond = (_request, response) =>
      sendJson(response, 404, { error: { message: 'The model does not exist' } });
    const error = await modelError(
      openAIModel({
        model: 'test-model',
        apiKey: 'k7',
        baseURL: chat.server.baseURL,
        maxRetries: 0,
      }).generate(request()),
    );
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^Not found \(404\): .*The model does not exist/);
  });
});
