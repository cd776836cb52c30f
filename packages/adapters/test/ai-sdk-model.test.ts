/**
 * `aiSdkModel` on `MockLanguageModelV3` (from `ai/test`): the transcript and tools converted to the
 * v3 prompt and the answer back (tool-call ids kept), text and tool calls generated or streamed,
 * usage, retries, errors as `ModelError` with a public message, and aborts.
 */
import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import {
  answerQuestion,
  askUserQuestion,
  type ChatMessage,
  defineAgent,
  ModelError,
  runTurn,
  type ToolSpec,
  TurnkitError,
} from '@turnkit/core';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { mockModel, stream, streamParts, usage } from './helpers/ai-sdk-mock.js';

const tools: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'query_inventory',
      description: 'Count vials.',
      parameters: { type: 'object', properties: { cellLine: { type: 'string' } }, required: ['cellLine'] },
    },
  },
];

const transcript: ChatMessage[] = [
  { role: 'system', content: 'You are an LN2 inventory assistant.' },
  { role: 'user', content: 'How many K562 and HeLa vials?' },
  {
    role: 'assistant',
    content: 'Checking both.',
    tool_calls: [
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' },
      },
      { id: 'call_b', type: 'function', function: { name: 'query_inventory', arguments: '{broken' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: '{"vials":3}' },
  {
    role: 'tool',
    tool_call_id: 'call_b',
    content: '{"ok":false,"error_code":"invalid_arguments","message":"Unexpected token"}',
  },
];

function apiError(statusCode: number, message: string, headers: Record<string, string> = {}) {
  return new APICallError({
    message,
    url: 'https://llm.internal.example/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify({ error: { message } }),
  });
}

describe('aiSdkModel: conversion', () => {
  it('sends the transcript as a v3 prompt and the tools as function tools', async () => {
    const model = mockModel({ text: ['Done.'] });
    await aiSdkModel(model, { maxOutputTokens: 256, temperature: 0.1 }).generate({
      messages: transcript,
      tools,
    });
    const [options] = model.doGenerateCalls;
    expect(options?.prompt).toEqual([
      { role: 'system', content: 'You are an LN2 inventory assistant.' },
      { role: 'user', content: [{ type: 'text', text: 'How many K562 and HeLa vials?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          {
            type: 'tool-call',
            toolCallId: 'call_a',
            toolName: 'query_inventory',
            input: { cellLine: 'K562' },
          },
          { type: 'tool-call', toolCallId: 'call_b', toolName: 'query_inventory', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_a',
            toolName: 'query_inventory',
            output: { type: 'text', value: '{"vials":3}' },
          },
          {
            type: 'tool-result',
            toolCallId: 'call_b',
            toolName: 'query_inventory',
            output: { type: 'error-text', value: transcript[4]!.content },
          },
        ],
      },
    ]);
    expect(options?.tools).toEqual([
      {
        type: 'function',
        name: 'query_inventory',
        description: 'Count vials.',
        inputSchema: tools[0]!.function.parameters,
      },
    ]);
    expect(options).toMatchObject({ toolChoice: { type: 'auto' }, maxOutputTokens: 256, temperature: 0.1 });
  });

  it('leaves tools out when there are none, and an assistant message with neither text nor calls', async () => {
    const model = mockModel({ text: ['Hi'] });
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'Again' },
    ];
    await aiSdkModel(model).generate({ messages, tools: [] });
    const [options] = model.doGenerateCalls;
    expect(options).not.toHaveProperty('tools');
    expect(options).not.toHaveProperty('toolChoice');
    expect(options?.prompt.map((message) => message.role)).toEqual(['user', 'user']);
  });

  it('names itself after the provider family and the model id', () => {
    expect(aiSdkModel(mockModel([])).name).toBe('mock:mock-1');
    expect(aiSdkModel(mockModel([]), { name: 'claude' }).name).toBe('claude');
  });

  it('refuses a model that does not implement provider spec v3', () => {
    const v2 = { ...mockModel([]), specificationVersion: 'v2' } as unknown as MockLanguageModelV3;
    expect(() => aiSdkModel(v2)).toThrow(TurnkitError);
    expect(() => aiSdkModel(v2)).toThrow(/provider spec v3.*got spec v2/);
  });
});

describe('aiSdkModel: answers', () => {
  it('returns generated text and usage (doGenerate without onDelta)', async () => {
    const model = mockModel({ text: ['Three ', 'vials.'], usage: usage(12, 3) });
    const result = await aiSdkModel(model).generate({ messages: transcript, tools });
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Three vials.' },
      usage: { inputTokens: 12, outputTokens: 3 },
    });
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('returns tool calls with the provider’s ids and the arguments as the raw JSON text', async () => {
    const calls = [
      { id: 'toolu_01', name: 'query_inventory', input: '{"cellLine": "K562"}' },
      { id: 'toolu_02', name: 'query_inventory', input: '{"cellLine":"HeLa"}' },
    ];
    const result = await aiSdkModel(mockModel({ calls })).generate({ messages: transcript, tools });
    expect(result.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.input },
      })),
    });
  });

  it('streams text deltas to onDelta in order and assembles the streamed calls (doStream)', async () => {
    const model = mockModel({
      text: ['Let me ', 'check.'],
      calls: [{ id: 'call_9', name: 'query_inventory', input: '{"cellLine":"K562"}' }],
    });
    const deltas: string[] = [];
    const result = await aiSdkModel(model).generate({
      messages: transcript,
      tools,
      onDelta: (text) => deltas.push(text),
    });
    expect(deltas).toEqual(['Let me ', 'check.']);
    expect(result).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' },
          },
        ],
      },
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('assembles a call from its input deltas when the provider sends no tool-call part', async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'tool-input-start', id: 'c1', toolName: 'query_inventory' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"cellLine":' },
      { type: 'tool-input-delta', id: 'c1', delta: '"K562"}' },
      { type: 'tool-input-end', id: 'c1' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(1, 1) },
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: stream(parts) }) });
    const result = await aiSdkModel(model).generate({
      messages: transcript,
      tools,
      onDelta: () => undefined,
    });
    expect(result.message.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' } },
    ]);
  });

  it('generates instead of streaming with stream: false, and reports no usage when the provider has none', async () => {
    const empty = { inputTokens: {}, outputTokens: {} } as unknown as ReturnType<typeof usage>;
    const model = mockModel({ text: ['ok'], usage: empty });
    const result = await aiSdkModel(model, { stream: false }).generate({
      messages: transcript,
      tools,
      onDelta: () => undefined,
    });
    expect(result).toEqual({ message: { role: 'assistant', content: 'ok' } });
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('plays a whole turn: pauses on AskUserQuestion, resumes with a fresh model, streams deltas as events', async () => {
    const script = () =>
      mockModel([
        {
          text: ['One moment.'],
          calls: [
            {
              id: 'toolu_ask',
              name: 'AskUserQuestion',
              input: JSON.stringify({
                questions: [{ question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] }],
              }),
            },
          ],
        },
        (options) => {
          const last = options.prompt.at(-1);
          const result = last?.role === 'tool' ? last.content[0] : undefined;
          return {
            text: [`You chose ${result?.type === 'tool-result' ? JSON.stringify(result.output) : '?'}`],
          };
        },
      ]);
    const agent = (model: MockLanguageModelV3) =>
      defineAgent({
        name: 'inv',
        instructions: 'Ask first.',
        model: aiSdkModel(model),
        tools: [askUserQuestion()],
      });
    const paused = await runTurn(agent(script()), { input: 'Thaw a vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion?.toolCallId).toBe('toolu_ask');
    expect(paused.events.filter((event) => event.type === 'model_delta')).toHaveLength(1);

    const done = await answerQuestion(agent(script()), paused.snapshot, { answers: 'HeLa' });
    expect(done.output).toBe('You chose {"type":"text","value":"{\\"answers\\":{\\"Line\\":\\"HeLa\\"}}"}');
    expect(done.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
  });
});

describe('aiSdkModel: failures', () => {
  it('maps a refused call to ModelError: the provider’s text for operators, only the status for clients', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw apiError(401, 'Incorrect API key provided: sk-abc…xyz');
      },
    });
    const error = await aiSdkModel(model)
      .generate({ messages: transcript, tools, onDelta: () => undefined })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'MODEL_ERROR', status: 401 });
    const { message, publicMessage } = error as ModelError;
    expect(message).toContain('Incorrect API key provided: sk-abc…xyz');
    expect(message).toContain('https://llm.internal.example/v1/chat/completions');
    expect(publicMessage).toBe('The model provider refused the credentials (401).');
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('retries what the provider marks retryable, honouring retry-after-ms, then gives up with the count', async () => {
    let calls = 0;
    const flaky = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        if (calls < 3) throw apiError(429, 'Rate limit reached', { 'retry-after-ms': '1' });
        return {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage: usage(1, 1),
          warnings: [],
        };
      },
    });
    expect((await aiSdkModel(flaky).generate({ messages: transcript, tools })).message.content).toBe('ok');
    expect(calls).toBe(3);

    const limited = new MockLanguageModelV3({
      doGenerate: async () => {
        throw apiError(429, 'Rate limit reached', { 'retry-after-ms': '1' });
      },
    });
    const error = (await aiSdkModel(limited, { maxRetries: 1 })
      .generate({ messages: transcript, tools })
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error).toMatchObject({
      status: 429,
      publicMessage: 'The model provider is limiting requests (429). Retry the turn later.',
    });
    expect(error.message).toMatch(/^Rate limited \(429\) after 2 attempts: Rate limit reached/);
    expect(limited.doGenerateCalls).toHaveLength(2);
  });

  it('maps an error part of the stream by its type, and never retries once text has streamed', async () => {
    const overloaded = { type: 'overloaded_error', message: 'Overloaded' };
    const parts: LanguageModelV3StreamPart[] = [
      ...streamParts({ text: ['Partial'] }).slice(0, 3),
      { type: 'error', error: overloaded },
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: stream(parts) }) });
    const deltas: string[] = [];
    const error = (await aiSdkModel(model)
      .generate({ messages: transcript, tools, onDelta: (text) => deltas.push(text) })
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      status: 529,
      publicMessage: 'The model provider failed (529). Retry the turn later.',
    });
    expect(error.message).toContain('(overloaded_error) for model "mock-model-id": Overloaded.');
    expect(deltas).toEqual(['Partial']);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('retries a stream that failed before any text, and fails a stream that ends without finish', async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls++;
        return {
          stream: stream(
            calls === 1
              ? [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]
              : streamParts({ text: ['fine'] }),
          ),
        };
      },
    });
    const result = await aiSdkModel(model).generate({
      messages: transcript,
      tools,
      onDelta: () => undefined,
    });
    expect(result.message.content).toBe('fine');
    expect(calls).toBe(2);

    const cut = new MockLanguageModelV3({
      doStream: async () => ({ stream: stream(streamParts({ text: ['half'] }).slice(0, 3)) }),
    });
    const error = (await aiSdkModel(cut, { maxRetries: 0 })
      .generate({ messages: transcript, tools, onDelta: () => undefined })
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toMatch(/ended before its finish/);
    expect(error.publicMessage).toBe('The model call failed. Retry the turn later.');
  });

  it('ends the turn failed with only the public message in the result, and the full error in onError', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw apiError(403, 'Project proj_secret may not use this model');
      },
    });
    const reported: unknown[] = [];
    const agent = defineAgent({ name: 'inv', instructions: 'i', model: aiSdkModel(model), tools: [] });
    const result = await runTurn(agent, { input: 'hi' }, { onError: (error) => reported.push(error) });
    expect(result.status).toBe('failed');
    expect(result.error).toEqual({
      code: 'MODEL_ERROR',
      message: 'The model provider refused the credentials (403).',
    });
    expect(result.snapshot).not.toContain('proj_secret');
    expect((reported[0] as ModelError).message).toContain('proj_secret');
  });
});

describe('aiSdkModel: abort', () => {
  it('rejects with an AbortError without calling the model when the signal is already aborted', async () => {
    const model = mockModel({ text: ['never'] });
    const controller = new AbortController();
    controller.abort();
    await expect(
      aiSdkModel(model).generate({ messages: transcript, tools, signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('passes the signal to the provider, stops reading mid-stream and cancels the stream', async () => {
    let cancelled = false;
    const endless = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 't0', delta: 'Thinking' });
      },
      cancel() {
        cancelled = true;
      },
    });
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: endless }) });
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = aiSdkModel(model).generate({
      messages: transcript,
      tools,
      signal: controller.signal,
      onDelta: (text) => {
        deltas.push(text);
        controller.abort();
      },
    });
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(model.doStreamCalls[0]?.abortSignal).toBe(controller.signal);
    expect(deltas).toEqual(['Thinking']);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(true);
  });

  it('ends the turn aborted when the signal fires during a retry’s backoff', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw apiError(503, 'Service unavailable', { 'retry-after': '30' });
      },
    });
    const controller = new AbortController();
    const agent = defineAgent({ name: 'inv', instructions: 'i', model: aiSdkModel(model), tools: [] });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const result = await runTurn(agent, { input: 'hi' }, { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
