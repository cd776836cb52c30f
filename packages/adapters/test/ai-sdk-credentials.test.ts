/**
 * A missing or refused API key through `aiSdkModel` and real providers (issue 29): operators read
 * what to fix (no ".." and no advice about the provider spec), clients read that the provider
 * refused the credentials, never the key or the URL.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { defineAgent, type ModelError, runTurn } from '@turnkit/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { type ChatServer, sendJson, startChatServer } from './helpers/chat-server.js';

let server: ChatServer;
beforeAll(async () => {
  server = await startChatServer();
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllEnvs());

async function failedTurn(model: ReturnType<typeof aiSdkModel>) {
  const reported: unknown[] = [];
  const agent = defineAgent({ name: 'inv', instructions: 'i', model, tools: [] });
  const result = await runTurn(agent, { input: 'hi' }, { onError: (error) => reported.push(error) });
  return { result, reported: reported[0] as ModelError };
}

describe('aiSdkModel credentials', () => {
  it('says a missing key is missing, before any request: to onError how to set it, to clients that it was refused', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    server.requests.length = 0;
    const model = aiSdkModel(createAnthropic({ baseURL: server.baseURL })('claude-sonnet-4-5'), {
      maxOutputTokens: 64,
    });
    const { result, reported } = await failedTurn(model);
    expect(result.error).toEqual({
      code: 'MODEL_ERROR',
      message: 'The model provider refused the credentials: no API key is set.',
    });
    expect(reported.message).toMatch(
      /^The anthropic\.messages provider has no API key for model "claude-sonnet-4-5": /,
    );
    expect(reported.message).toContain('ANTHROPIC_API_KEY');
    expect(reported.message).not.toContain('..');
    expect(reported.message).not.toMatch(/provider spec/);
    expect(server.requests).toHaveLength(0);
  });

  it('says a refused key (401) was refused, with the provider text once and no double stop', async () => {
    server.respond = (_request, response) =>
      sendJson(response, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' },
      });
    const model = aiSdkModel(
      createOpenAICompatible({ name: 'lab', baseURL: server.baseURL, apiKey: 'sk-wrong' }).chatModel('lab-1'),
    );
    const { result, reported } = await failedTurn(model);
    expect(result.error?.message).toBe('The model provider refused the credentials (401).');
    expect(reported.message).toContain(
      'Incorrect API key provided. Check the key you gave the lab.chat provider',
    );
    expect(reported.message).not.toContain('..');
  });
});
