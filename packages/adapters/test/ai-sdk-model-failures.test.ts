/**
 * `aiSdkModel`'s failures and aborts on the mock models of both provider specs (`MockLanguageModelV3`
 * of `ai/test`, `MockLanguageModelV4` of `ai-7/test`), each provider error thrown by its own major's
 * `APICallError`: refused calls as `ModelError` with a public message, retries honouring
 * `retry-after`, in-stream errors, cut streams, and aborts before, during and between calls.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { defineAgent, ModelError, runTurn } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { apiError, tools, transcript } from './helpers/ai-sdk-fixtures.js';
import {
  mockModel,
  SPEC_MAJORS,
  type SpecMajor,
  specMock,
  stream,
  streamParts,
  usage,
} from './helpers/ai-sdk-mock.js';

describe.each(SPEC_MAJORS)('aiSdkModel on spec v%i models', (major: SpecMajor) => {
  describe('aiSdkModel: failures', () => {
    it('maps a refused call to ModelError: the provider’s text for operators, only the status for clients', async () => {
      const model = specMock(major, {
        doStream: async () => {
          throw apiError(major, 401, 'Incorrect API key provided: sk-abc…xyz');
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
      const flaky = specMock(major, {
        doGenerate: async () => {
          calls++;
          if (calls < 3) throw apiError(major, 429, 'Rate limit reached', { 'retry-after-ms': '1' });
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

      const limited = specMock(major, {
        doGenerate: async () => {
          throw apiError(major, 429, 'Rate limit reached', { 'retry-after-ms': '1' });
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
      const model = specMock(major, { doStream: async () => ({ stream: stream(parts) }) });
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
      const model = specMock(major, {
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

      const cut = specMock(major, {
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
      const model = specMock(major, {
        doStream: async () => {
          throw apiError(major, 403, 'Project proj_secret may not use this model');
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
      const model = mockModel({ text: ['never'] }, major);
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
      const model = specMock(major, { doStream: async () => ({ stream: endless }) });
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
      const model = specMock(major, {
        doStream: async () => {
          throw apiError(major, 503, 'Service unavailable', { 'retry-after': '30' });
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
});
