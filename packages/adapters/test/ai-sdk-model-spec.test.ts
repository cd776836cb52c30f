/**
 * Where `aiSdkModel` tells the provider specs apart: what only spec v4 (AI SDK 7) has — a stream the
 * provider marks `interrupted`, `structuredOutputText`, the `reasoning` setting — and what it refuses
 * up front: models of neither spec, a gateway model id, `reasoning` for a v3 model, a bad `maxRetries`.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { TurnkitError } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { type AiSdkLanguageModel, aiSdkModel } from '../src/models/ai-sdk/model.js';
import { tools, transcript } from './helpers/ai-sdk-fixtures.js';
import { mockModel, specMock, stream, streamParts, usage } from './helpers/ai-sdk-mock.js';

describe('aiSdkModel: what only spec v4 has', () => {
  it('fails a stream the provider marks interrupted, retrying it while no text has streamed', async () => {
    const cut: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      {
        type: 'finish',
        finishReason: { unified: 'interrupted' as 'other', raw: undefined },
        usage: usage(3, 0),
      },
    ];
    let calls = 0;
    const model = specMock(4, {
      doStream: async () => ({ stream: stream(++calls === 1 ? cut : streamParts({ text: ['whole'] })) }),
    });
    const result = await aiSdkModel(model).generate({
      messages: transcript,
      tools,
      onDelta: () => undefined,
    });
    expect(result.message.content).toBe('whole');
    expect(calls).toBe(2);

    const halfway = [...streamParts({ text: ['half'] }).slice(0, 3), cut[1]!];
    const always = specMock(4, { doStream: async () => ({ stream: stream(halfway) }) });
    const deltas: string[] = [];
    const error = await aiSdkModel(always)
      .generate({ messages: transcript, tools, onDelta: (text) => deltas.push(text) })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MODEL_ERROR' });
    expect((error as Error).message).toMatch(/ended before its finish/);
    expect(deltas).toEqual(['half']);
    expect(always.doStreamCalls).toHaveLength(1);
  });

  it('answers a structured call with the provider’s structuredOutputText, and other calls with all the text', async () => {
    // A v4 field: the handlers are typed as v3's, which has no structuredOutputText.
    const result = {
      content: [
        { type: 'text' as const, text: 'Draft: {"priority":"lo' },
        { type: 'text' as const, text: '{"priority":"high"}' },
      ],
      structuredOutputText: '{"priority":"high"}',
      finishReason: { unified: 'stop' as const, raw: undefined },
      usage: usage(4, 2),
      warnings: [],
    };
    const model = specMock(4, { doGenerate: async () => result });
    const adapter = aiSdkModel(model);
    const schema = { type: 'object', properties: { priority: { type: 'string' } } };
    const structured = await adapter.generate({
      messages: transcript,
      tools: [],
      responseFormat: { name: 'triage', schema },
    });
    expect(structured.message.content).toBe('{"priority":"high"}');
    const plain = await adapter.generate({ messages: transcript, tools: [] });
    expect(plain.message.content).toBe('Draft: {"priority":"lo{"priority":"high"}');
  });

  it('passes the reasoning setting to a v4 model', async () => {
    const model = mockModel({ text: ['ok'] }, 4);
    await aiSdkModel(model, { reasoning: 'low' }).generate({ messages: transcript, tools });
    expect(model.doGenerateCalls[0]).toMatchObject({ reasoning: 'low' });
  });
});

describe('aiSdkModel: what it refuses', () => {
  it('refuses a model of neither spec v3 nor v4, saying which lines are supported', () => {
    const v2 = { ...mockModel([]), specificationVersion: 'v2' } as unknown as AiSdkLanguageModel;
    expect(() => aiSdkModel(v2)).toThrow(TurnkitError);
    expect(() => aiSdkModel(v2)).toThrow(
      /provider spec v3 \(AI SDK 6\) or v4 \(AI SDK 7\), got spec v2\. .*@ai-sdk\/openai@4 or @3/,
    );
    expect(() => aiSdkModel(v2)).not.toThrow(/install the AI SDK 6 line/i);
  });

  it('refuses a gateway model id and a missing model with CONFIG_INVALID', () => {
    const id = 'openai/gpt-4.1-mini' as unknown as AiSdkLanguageModel;
    expect(() => aiSdkModel(id)).toThrow(/got the string "openai\/gpt-4.1-mini" \(a gateway model id/);
    const missing = undefined as unknown as AiSdkLanguageModel;
    for (const model of [id, missing]) {
      expect(() => aiSdkModel(model)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
    expect(() => aiSdkModel(missing)).toThrow(/got no model/);
  });

  it('refuses reasoning for a v3 model, and a maxRetries that is not a whole number ≥ 0', () => {
    expect(() => aiSdkModel(mockModel([], 3), { reasoning: 'low' })).toThrow(
      /reasoning is a setting of provider spec v4 \(AI SDK 7\), and mock\.chat model "mock-1" implements spec v3/,
    );
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      expect(() => aiSdkModel(mockModel([]), { maxRetries })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('maxRetries') }),
      );
    }
  });
});
