/**
 * `request.settings` and `request.responseFormat` (DESIGN §23) through `aiSdkModel` and the real
 * providers of both AI SDK lines (`@ai-sdk/openai` and `@ai-sdk/anthropic` 3 and 4,
 * `@ai-sdk/openai-compatible` 2): the request bodies the loopback servers receive carry them in each
 * provider's own fields, the same for both majors.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAnthropic as createAnthropic4 } from '@ai-sdk/anthropic-4';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAI4 } from '@ai-sdk/openai-4';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelAdapter, ModelRequest, ModelSettings } from '@turnkit/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { type ChatServer, completion, sendJson, startChatServer } from './helpers/chat-server.js';

let server: ChatServer;
beforeAll(async () => {
  server = await startChatServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.respond = (request, response) =>
    request.url.endsWith('/messages')
      ? sendJson(response, 200, {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test-1',
          content: [{ type: 'text', text: '{"priority":"high"}' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 3 },
        })
      : sendJson(response, 200, completion({ content: '{"priority":"high"}' }));
});

const tools: ModelRequest['tools'] = [
  {
    type: 'function',
    function: {
      name: 'query',
      description: 'Query the inventory',
      parameters: { type: 'object', properties: {} },
    },
  },
];
const schema = {
  type: 'object',
  properties: { priority: { type: 'string', enum: ['low', 'high'] } },
  required: ['priority'],
};
const settings: ModelSettings = {
  temperature: 0.3,
  topP: 0.9,
  maxOutputTokens: 128,
  toolChoice: { type: 'function', name: 'query' },
  parallelToolCalls: false,
  stop: ['END'],
  seed: 7,
};

/** The provider factories of each major. */
const PROVIDERS = [
  { major: 3, createOpenAI, createAnthropic },
  { major: 4, createOpenAI: createOpenAI4, createAnthropic: createAnthropic4 },
];
const compatible = (supportsStructuredOutputs: boolean) =>
  aiSdkModel(
    createOpenAICompatible({
      name: 'lab',
      baseURL: server.baseURL,
      apiKey: 'k',
      supportsStructuredOutputs,
    }).chatModel('lab-1'),
  );

async function bodyOf(model: ModelAdapter, request: Partial<ModelRequest>) {
  await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools, ...request });
  return server.requests[0]?.body ?? {};
}

describe.each(PROVIDERS)('aiSdkModel settings through the real providers of major $major', (providers) => {
  const openai = () =>
    aiSdkModel(providers.createOpenAI({ baseURL: server.baseURL, apiKey: 'k' }).chat('gpt-test'));
  const anthropic = () =>
    aiSdkModel(providers.createAnthropic({ baseURL: server.baseURL, apiKey: 'k' })('claude-sonnet-4-5'));

  it('@ai-sdk/openai: every setting, parallel_tool_calls and a strict json_schema', async () => {
    const body = await bodyOf(openai(), {
      settings: { ...settings, providerOptions: { openai: { user: 'lab-7' } } },
      responseFormat: { name: 'triage', schema },
    });
    expect(body).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 128,
      tool_choice: { type: 'function', function: { name: 'query' } },
      parallel_tool_calls: false,
      stop: ['END'],
      seed: 7,
      user: 'lab-7',
      response_format: { type: 'json_schema', json_schema: { name: 'triage', schema, strict: true } },
    });
  });

  it('@ai-sdk/anthropic: the settings it takes, no parallel tool use, and the output schema', async () => {
    const body = await bodyOf(anthropic(), {
      settings: { ...settings, topP: undefined },
      responseFormat: { name: 'triage', schema },
    });
    expect(body).toMatchObject({
      temperature: 0.3,
      max_tokens: 128,
      stop_sequences: ['END'],
      tool_choice: { type: 'tool', name: 'query', disable_parallel_tool_use: true },
    });
    expect(body.output_config).toEqual({
      format: { type: 'json_schema', schema: { ...schema, additionalProperties: false } },
    });
  });
});

describe('aiSdkModel settings through @ai-sdk/openai-compatible@2', () => {
  it('@ai-sdk/openai-compatible: the settings, providerOptions as given, the schema when supported', async () => {
    const body = await bodyOf(compatible(true), {
      settings: { ...settings, providerOptions: { lab: { parallel_tool_calls: false } } },
      responseFormat: { name: 'triage', schema },
    });
    expect(body).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 128,
      tool_choice: { type: 'function', function: { name: 'query' } },
      parallel_tool_calls: false,
      stop: ['END'],
      seed: 7,
      response_format: { type: 'json_schema', json_schema: { name: 'triage', schema } },
    });
    server.requests.length = 0;
    const plain = await bodyOf(compatible(false), { responseFormat: { name: 'triage', schema } });
    expect(plain.response_format).toEqual({ type: 'json_object' });
  });

  it('sends no setting when the request has none, and the adapter defaults lose to the request', async () => {
    const body = await bodyOf(compatible(false), {});
    for (const field of ['temperature', 'top_p', 'max_tokens', 'stop', 'seed', 'response_format']) {
      expect(body).not.toHaveProperty(field);
    }
    expect(body.tool_choice).toBe('auto');
    server.requests.length = 0;
    const model = aiSdkModel(
      createOpenAICompatible({ name: 'lab', baseURL: server.baseURL, apiKey: 'k' }).chatModel('lab-1'),
      { temperature: 1, maxOutputTokens: 64 },
    );
    expect(await bodyOf(model, { settings: { temperature: 0, toolChoice: 'none' } })).toMatchObject({
      temperature: 0,
      max_tokens: 64,
      tool_choice: 'none',
    });
  });
});
