import type { ChatMessage } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { openAIModel } from '../src/models/openai/openai.js';
import { chunk, completion, sendJson, sendSse, usageChunk } from './helpers/chat-server.js';
import {
  messages,
  OPENAI_MAJORS,
  type OpenAIMajor,
  request,
  tools,
  useChatServer,
} from './helpers/openai-fixtures.js';

const chat = useChatServer();

describe.each(OPENAI_MAJORS)('openai $major', (major: OpenAIMajor) => {
  const model = (options: Parameters<typeof chat.model>[0] = {}) => chat.model(options, major);

  describe('openAIModel, non-streaming', () => {
    it('returns the text and the usage, and sends the messages, tools and options as given', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(
          response,
          200,
          completion({ content: 'Done.' }, { prompt_tokens: 12, completion_tokens: 3 }),
        );
      const result = await chat
        .model({
          stream: false,
          temperature: 0.2,
          extraBody: { max_completion_tokens: 64 },
        })
        .generate(request());
      expect(result).toEqual({
        message: { role: 'assistant', content: 'Done.' },
        usage: { inputTokens: 12, outputTokens: 3 },
      });
      const [received] = chat.server.requests;
      expect(received?.url).toBe('/v1/chat/completions');
      expect(received?.headers.authorization).toBe('Bearer test');
      expect(received?.body).toEqual({
        model: 'test-model',
        messages,
        tools,
        temperature: 0.2,
        max_completion_tokens: 64,
        stream: false,
      });
    });

    it('returns tool calls in the OpenAI shape with the arguments as the raw string', async () => {
      const toolCalls = [
        { id: 'call_a', type: 'function', function: { name: 'query', arguments: '{"q":"K562"}' } },
        { id: 'call_b', type: 'function', function: { name: 'query', arguments: '{not json' } },
      ];
      chat.server.respond = (_request, response) =>
        sendJson(response, 200, completion({ content: null, tool_calls: toolCalls }));
      const result = await model({ stream: false }).generate(request());
      expect(result.message).toEqual({ role: 'assistant', content: null, tool_calls: toolCalls });
      expect(result.usage).toBeUndefined();
    });

    it('leaves tools out of the request when there are none, and drops an empty tool_calls array', async () => {
      chat.server.respond = (_request, response) => sendJson(response, 200, completion({ content: 'Hi' }));
      const history: ChatMessage[] = [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi', tool_calls: [] },
        { role: 'user', content: 'Again' },
      ];
      await model({ stream: false }).generate({ messages: history, tools: [] });
      expect(chat.server.requests[0]?.body).not.toHaveProperty('tools');
      expect(chat.server.requests[0]?.body.messages).toEqual([
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi' },
        { role: 'user', content: 'Again' },
      ]);
    });

    it('uses a client passed in', async () => {
      chat.server.respond = (_request, response) =>
        sendJson(response, 200, completion({ content: 'From my client' }));
      const client = new major.OpenAI({ apiKey: 'mine', baseURL: chat.server.baseURL, maxRetries: 0 });
      const adapter = openAIModel({ model: 'test-model', client, stream: false });
      expect(adapter.name).toBe('openai:test-model');
      expect((await adapter.generate(request())).message.content).toBe('From my client');
      expect(chat.server.requests[0]?.headers.authorization).toBe('Bearer mine');
    });
  });

  describe('openAIModel, streaming', () => {
    it('sends deltas to onDelta in order, joins them, and reads the usage of the last chunk', async () => {
      const pieces = ['Thawing ', 'one ', 'K562 ', 'vial', '.'];
      chat.server.respond = (_request, response) =>
        sendSse(response, [
          chunk({ role: 'assistant', content: '' }),
          ...pieces.map((piece) => chunk({ content: piece })),
          chunk({}, 'stop'),
          usageChunk(40, 5),
        ]);
      const deltas: string[] = [];
      const result = await model().generate(request({ onDelta: (text) => deltas.push(text) }));
      expect(deltas).toEqual(pieces);
      expect(result).toEqual({
        message: { role: 'assistant', content: 'Thawing one K562 vial.' },
        usage: { inputTokens: 40, outputTokens: 5 },
      });
      expect(chat.server.requests[0]?.body).toMatchObject({
        model: 'test-model',
        messages,
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
    });

    it('assembles parallel tool calls from interleaved fragments, by index', async () => {
      chat.server.respond = (_request, response) =>
        sendSse(response, [
          chunk({ role: 'assistant', content: null }),
          chunk({
            tool_calls: [
              { index: 0, id: 'call_a', type: 'function', function: { name: 'query', arguments: '' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
          chunk({
            tool_calls: [
              { index: 1, id: 'call_b', type: 'function', function: { name: 'thaw', arguments: '{"vi' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"K56' } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: 'als":1}' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '2"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk(50, 20),
        ]);
      const deltas: string[] = [];
      const result = await model().generate(request({ onDelta: (text) => deltas.push(text) }));
      expect(deltas).toEqual([]);
      expect(result.message).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'query', arguments: '{"q":"K562"}' } },
          { id: 'call_b', type: 'function', function: { name: 'thaw', arguments: '{"vials":1}' } },
        ],
      });
      expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 20 });
    });

    it('keeps text that comes before tool calls', async () => {
      chat.server.respond = (_request, response) =>
        sendSse(response, [
          chunk({ content: 'Let me check.' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'query', arguments: '{}' } }] }),
          chunk({}, 'tool_calls'),
        ]);
      const result = await model().generate(request());
      expect(result.message.content).toBe('Let me check.');
      expect(result.message.tool_calls).toHaveLength(1);
    });
  });
});
