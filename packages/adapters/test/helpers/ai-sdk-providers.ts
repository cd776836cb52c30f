/**
 * Real AI SDK providers of both lines against loopback fakes, for the `aiSdkModel` tests and their
 * child process: `@ai-sdk/openai` 3 and 4 (chat API) and `@ai-sdk/openai-compatible` 2 on a
 * chat-completions responder, `@ai-sdk/anthropic` 3 and 4 on a Messages API responder speaking
 * Anthropic's SSE events, the spec v3 and v4 mocks, and the agent the tests pause and resume on each
 * — the model asks which cell line (AskUserQuestion), then notes the answer it was given.
 */
import type { ServerResponse } from 'node:http';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAnthropic as createAnthropic4 } from '@ai-sdk/anthropic-4';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAI4 } from '@ai-sdk/openai-4';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type Agent, askUserQuestion, defineAgent } from '@turnkit/core';
import { type AiSdkLanguageModel, aiSdkModel } from '../../src/models/ai-sdk/model.js';
import { mockModel } from './ai-sdk-mock.js';
import { chunk, type ReceivedRequest, sendSse, usageChunk } from './chat-server.js';

/** A provider family, and the major of its package (`mock@4` is `MockLanguageModelV4`). */
export type ProviderKind =
  | 'mock@3'
  | 'mock@4'
  | 'openai@3'
  | 'openai@4'
  | 'openai-compatible@2'
  | 'anthropic@3'
  | 'anthropic@4';

/** Every kind, for `describe.each`. */
export const PROVIDER_KINDS: ProviderKind[] = [
  'mock@3',
  'mock@4',
  'openai@3',
  'openai@4',
  'openai-compatible@2',
  'anthropic@3',
  'anthropic@4',
];

/** The family of a kind: what its fake server speaks, and the call id it gives. */
export type ProviderFamily = 'mock' | 'openai' | 'anthropic';

/** `openai` and `openai-compatible` speak chat completions; the others are their own family. */
export function familyOf(kind: ProviderKind): ProviderFamily {
  if (kind.startsWith('openai')) return 'openai';
  return kind.startsWith('anthropic') ? 'anthropic' : 'mock';
}

/** The question the model asks, as its tool-call arguments. */
export const QUESTION_ARGUMENTS = JSON.stringify({
  questions: [{ question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] }],
});

/** The id each fake gives its AskUserQuestion call: it must survive the pause and the other process. */
export const ASK_CALL_ID: Record<ProviderFamily, string> = {
  mock: 'mock_ask_1',
  openai: 'call_ask_1',
  anthropic: 'toolu_ask_1',
};

/** The agent on a fresh model of the given kind (the fakes listen at `baseURL`). */
export function providerAgent(kind: ProviderKind, baseURL = ''): Agent {
  return defineAgent({
    name: 'inventory',
    instructions: 'You are an LN2 inventory assistant. Ask which line is meant.',
    model: aiSdkModel(languageModel(kind, baseURL), { maxOutputTokens: 256 }),
    tools: [askUserQuestion()],
  });
}

/** A fresh model of the given kind, its provider pointed at `baseURL` (the mocks ignore it). */
export function languageModel(kind: ProviderKind, baseURL: string): AiSdkLanguageModel {
  const settings = { baseURL, apiKey: 'test-key' };
  switch (kind) {
    case 'openai-compatible@2':
      return createOpenAICompatible({ name: 'lab', ...settings, includeUsage: true }).chatModel(
        'lab-model-1',
      );
    case 'openai@3':
      return createOpenAI(settings).chat('gpt-test-1');
    case 'openai@4':
      return createOpenAI4(settings).chat('gpt-test-1');
    case 'anthropic@3':
      return createAnthropic(settings)('claude-test-1');
    case 'anthropic@4':
      return createAnthropic4(settings)('claude-test-1');
  }
  const major = kind === 'mock@4' ? 4 : 3;
  return mockModel(
    [
      {
        text: ['One moment.'],
        calls: [{ id: ASK_CALL_ID.mock, name: 'AskUserQuestion', input: QUESTION_ARGUMENTS }],
      },
      (options) => {
        const last = options.prompt.at(-1);
        const part = last?.role === 'tool' ? last.content[0] : undefined;
        const output = part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '?';
        return { text: ['Noted: ', output] };
      },
    ],
    major,
  );
}

/** Chat completions: a streamed AskUserQuestion call, then, after a tool result, `Noted: <result>`. */
export function answerChat(request: ReceivedRequest, response: ServerResponse): void {
  const messages = request.body.messages as Array<{ role: string; content: string }>;
  const last = messages.at(-1);
  const usage = usageChunk(20, 8);
  if (last?.role === 'tool') {
    sendSse(response, [
      chunk({ role: 'assistant', content: 'Noted: ' }),
      chunk({ content: last.content }),
      chunk({}, 'stop'),
      usage,
    ]);
    return;
  }
  const id = ASK_CALL_ID.openai;
  const half = Math.floor(QUESTION_ARGUMENTS.length / 2);
  sendSse(response, [
    chunk({ role: 'assistant', content: '' }),
    chunk({
      tool_calls: [{ index: 0, id, type: 'function', function: { name: 'AskUserQuestion', arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: QUESTION_ARGUMENTS.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: QUESTION_ARGUMENTS.slice(half) } }] }),
    chunk({}, 'tool_calls'),
    usage,
  ]);
}

/** Writes Anthropic's SSE events (`event:` + `data:` lines); returns the writer. */
export function anthropicEvents(response: ServerResponse) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  return (type: string, data: Record<string, unknown> = {}) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/** The `message_start` event of a streamed message. */
export function messageStart(model: string): Record<string, unknown> {
  return {
    message: {
      id: 'msg_test_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 20,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  };
}

/** Messages API: text and a streamed AskUserQuestion `tool_use`, then, after a `tool_result`, `Noted: <result>`. */
export function answerMessages(request: ReceivedRequest, response: ServerResponse): void {
  const messages = request.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  const result = messages.at(-1)?.content.find((part) => part.type === 'tool_result');
  const event = anthropicEvents(response);
  event('message_start', messageStart(String(request.body.model)));
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('ping');
  event('content_block_delta', {
    index: 0,
    delta: { type: 'text_delta', text: result ? 'Noted: ' : 'One moment.' },
  });
  if (result)
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: String(result.content) } });
  event('content_block_stop', { index: 0 });
  if (!result) {
    const half = Math.floor(QUESTION_ARGUMENTS.length / 2);
    const block = { type: 'tool_use', id: ASK_CALL_ID.anthropic, name: 'AskUserQuestion', input: {} };
    event('content_block_start', { index: 1, content_block: block });
    for (const piece of [QUESTION_ARGUMENTS.slice(0, half), QUESTION_ARGUMENTS.slice(half)]) {
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index: 1 });
  }
  const stop = result ? 'end_turn' : 'tool_use';
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 8 } });
  event('message_stop');
  response.end();
}
