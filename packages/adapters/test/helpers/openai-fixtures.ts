/**
 * Shared pieces of the OpenAI adapter tests: a transcript and tools to send, both majors of the
 * `openai` client, and a fresh loopback chat server per test with an adapter pointed at it (no
 * retries unless a test asks).
 */
import { type ChatMessage, ModelError, type ModelRequest, type ToolSpec } from '@turnkit/core';
import OpenAI from 'openai';
import OpenAI7 from 'openai-7';
import { afterEach, beforeEach, expect } from 'vitest';
import { type OpenAIModelOptions, openAIModel } from '../../src/models/openai/openai.js';

/** A major of the `openai` client and its class. */
export interface OpenAIMajor {
  major: 6 | 7;
  OpenAI: typeof OpenAI | typeof OpenAI7;
}

/**
 * Both majors, for `describe.each`. The adapter imports `openai` (6 here), so on 6 it makes its own
 * client, as for a user with openai 6; on 7 it is given a client of `openai-7`, whose errors are
 * no `instanceof` the adapter's imports — what a user of openai 7 beside another copy gets.
 */
export const OPENAI_MAJORS: OpenAIMajor[] = [
  { major: 6, OpenAI },
  { major: 7, OpenAI: OpenAI7 },
];

import { type ChatServer, startChatServer } from './chat-server.js';

/** A transcript with every message kind, a tool round trip and non-ASCII text. */
export const messages: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Thaw one K562 vial ❄️' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'query', arguments: '{"q":"K562"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"vials":3}' },
];

export const tools: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'query',
      description: 'Query the inventory',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  },
];

/** A model request with the shared transcript and tools. */
export function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools, ...extra };
}

/**
 * Starts a chat server before each test (closed after it) and builds adapters pointed at it, on the
 * given major (default 6): on 7, a client of `openai-7` made from the same options.
 */
export function useChatServer() {
  const chat = {
    server: undefined as unknown as ChatServer,
    model: (options: Partial<OpenAIModelOptions> = {}, major: OpenAIMajor = OPENAI_MAJORS[0]!) => {
      const settings = {
        model: 'test-model',
        baseURL: chat.server.baseURL,
        apiKey: 'test',
        maxRetries: 0,
        ...options,
      };
      if (major.major === 6 || options.client) return openAIModel(settings);
      const client = new major.OpenAI({
        apiKey: settings.apiKey,
        baseURL: settings.baseURL,
        maxRetries: settings.maxRetries,
        ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
      });
      return openAIModel({ ...settings, client });
    },
  };
  beforeEach(async () => {
    chat.server = await startChatServer();
  });
  afterEach(async () => {
    await chat.server.close();
  });
  return chat;
}

/** Awaits a call that must fail with a ModelError, and returns the error. */
export async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => expect.fail('expected the call to fail'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect((error as ModelError).code).toBe('MODEL_ERROR');
  return error as ModelError;
}

/** Awaits a call that must be aborted, and returns the error. */
export async function abortedCall(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected an abort'),
    (caught: unknown) => caught as Error,
  );
}
