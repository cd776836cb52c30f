/**
 * `aiSdkModel` on the mock models of both provider specs — `MockLanguageModelV3` (`ai/test`, AI SDK
 * 6) and `MockLanguageModelV4` (`ai-7/test`, AI SDK 7), every case on each: the transcript and tools
 * converted to the prompt and the answer back (tool-call ids kept), text and tool calls generated or
 * streamed, usage, a whole turn paused and resumed. What only v4 has, and what is refused, are in
 * `ai-sdk-model-spec.test.ts`; failures and aborts in `ai-sdk-model-failures.test.ts`.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { answerQuestion, askUserQuestion, type ChatMessage, defineAgent, runTurn } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { tools, transcript } from './helpers/ai-sdk-fixtures.js';
import {
  type MockModel,
  mockModel,
  SPEC_MAJORS,
  type SpecMajor,
  specMock,
  stream,
  usage,
} from './helpers/ai-sdk-mock.js';

describe.each(SPEC_MAJORS)('aiSdkModel on spec v%i models', (major: SpecMajor) => {
  const mock = (steps: Parameters<typeof mockModel>[0]) => mockModel(steps, major);

  describe('aiSdkModel: conversion', () => {
    it('sends the transcript as a prompt and the tools as function tools', async () => {
      const model = mock({ text: ['Done.'] });
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
      const model = mock({ text: ['Hi'] });
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
      expect(aiSdkModel(mock([])).name).toBe('mock:mock-1');
      expect(aiSdkModel(mock([]), { name: 'claude' }).name).toBe('claude');
    });
  });

  describe('aiSdkModel: answers', () => {
    it('returns generated text and usage (doGenerate without onDelta)', async () => {
      const model = mock({ text: ['Three ', 'vials.'], usage: usage(12, 3) });
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
      const result = await aiSdkModel(mock({ calls })).generate({ messages: transcript, tools });
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
      const model = mock({
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
      const model = specMock(major, { doStream: async () => ({ stream: stream(parts) }) });
      const result = await aiSdkModel(model).generate({
        messages: transcript,
        tools,
        onDelta: () => undefined,
      });
      expect(result.message.tool_calls).toEqual([
        {
          id: 'c1',
          type: 'function',
          function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' },
        },
      ]);
    });

    it('generates instead of streaming with stream: false, and reports no usage when the provider has none', async () => {
      const empty = { inputTokens: {}, outputTokens: {} } as unknown as ReturnType<typeof usage>;
      const model = mock({ text: ['ok'], usage: empty });
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
        mock([
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
      const agent = (model: MockModel) =>
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
});
