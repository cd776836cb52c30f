/**
 * Real AI SDK 6 providers against loopback fakes, for the `aiSdkModel` tests and their child
 * process: a chat-completions responder (for `@ai-sdk/openai-compatible`), a Messages API responder
 * speaking Anthropic's SSE events (for `@ai-sdk/anthropic`), and the agent the tests pause and resume
 * on each — the model asks which cell line (AskUserQuestion), then notes the answer it was given.
 */
import type { ServerResponse } from 'node:http';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type Agent, askUserQuestion, defineAgent } from '@turnkit/core';
import { aiSdkModel } from '../../src/models/ai-sdk/model.js';
import { mockModel } from './ai-sdk-mock.js';
import { chunk, type ReceivedRequest, sendSse, usageChunk } from './chat-server.js';

/** Which model the agent runs on. */
export type ProviderKind = 'mock' | 'openai-compatible' | 'anthropic';

/** The question the model asks, as its tool-call arguments. */
export const QUESTION_ARGUMENTS = JSON.stringify({
  questions: [{ question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] }],
});

/** The id each fake gives its AskUserQuestion call: it must survive the pause and the other process. */
export const ASK_CALL_ID: Record<ProviderKind, string> = {
  mock: 'mock_ask_1',
  'openai-compatible': 'call_ask_1',
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

function languageModel(kind: ProviderKind, baseURL: string): LanguageModelV3 {
  if (kind === 'openai-compatible') {
    return createOpenAICompatible({ name: 'lab', baseURL, apiKey: 'test-key', includeUsage: true }).chatModel(
      'lab-model-1',
    );
  }
  if (kind === 'anthropic') return createAnthropic({ baseURL, apiKey: 'test-key' })('claude-test-1');
  return mockModel([
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
  ]);
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
  const id = ASK_CALL_ID['openai-compatible'];
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
