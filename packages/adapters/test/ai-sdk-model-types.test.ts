/**
 * The types `aiSdkModel` stands on, checked by the compiler (`tsc -p packages/adapters` covers the
 * tests): the models of both AI SDK lines are `AiSdkLanguageModel`s without a cast, what the adapter
 * sends is a prompt of spec v3 *and* v4, and what either spec answers fits what the adapter reads.
 * A change in either `@ai-sdk/provider` that breaks one of these fails the type check, not a user.
 * At run time each model is also taken by `aiSdkModel` (no call is made).
 */
import { anthropic } from '@ai-sdk/anthropic';
import { anthropic as anthropic4 } from '@ai-sdk/anthropic-4';
import { openai } from '@ai-sdk/openai';
import { openai as openai4 } from '@ai-sdk/openai-4';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type * as V3 from '@ai-sdk/provider';
import type * as V4 from '@ai-sdk/provider-4';
import { MockLanguageModelV3 } from 'ai/test';
import { MockLanguageModelV4 } from 'ai-7/test';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type AiSdkLanguageModel, aiSdkModel } from '../src/models/ai-sdk/model.js';
import type {
  AiSdkToolChoice,
  SpecContent,
  SpecMessage,
  SpecStreamPart,
  SpecUsage,
} from '../src/models/ai-sdk/model-spec.js';

/** The stream parts of kind K in a spec's union. */
type PartOf<Union, K extends string> = Extract<Union, { type: K }>;

describe('aiSdkModel types', () => {
  it('takes the provider models of both lines, and both mocks, without a cast', () => {
    const models = {
      'openai@3': openai('gpt-4.1-mini'),
      'openai@4': openai4('gpt-4.1-mini'),
      'openai@3 chat': openai.chat('gpt-4.1-mini'),
      'openai@4 chat': openai4.chat('gpt-4.1-mini'),
      'anthropic@3': anthropic('claude-sonnet-4-5'),
      'anthropic@4': anthropic4('claude-sonnet-4-5'),
      'openai-compatible@2': createOpenAICompatible({ name: 'lab', baseURL: 'http://127.0.0.1:1' }).chatModel(
        'm',
      ),
      MockLanguageModelV3: new MockLanguageModelV3(),
      MockLanguageModelV4: new MockLanguageModelV4(),
    };
    for (const [name, model] of Object.entries(models)) {
      const adapter = aiSdkModel(model);
      expect(adapter.name, name).toBe(`${model.provider.split('.')[0]}:${model.modelId}`);
    }
    expectTypeOf<V3.LanguageModelV3>().toExtend<AiSdkLanguageModel>();
    expectTypeOf<V4.LanguageModelV4>().toExtend<AiSdkLanguageModel>();
    expectTypeOf<V3.LanguageModelV2>().not.toExtend<AiSdkLanguageModel>();
  });

  it('sends a prompt and a tool choice that are valid in spec v3 and v4', () => {
    expectTypeOf<SpecMessage[]>().toExtend<V3.LanguageModelV3Prompt>();
    expectTypeOf<SpecMessage[]>().toExtend<V4.LanguageModelV4Prompt>();
    expectTypeOf<AiSdkToolChoice>().toExtend<V3.LanguageModelV3ToolChoice>();
    expectTypeOf<AiSdkToolChoice>().toExtend<V4.LanguageModelV4ToolChoice>();
  });

  it('reads results and stream parts whose shapes both specs share', () => {
    expectTypeOf<V3.LanguageModelV3Usage>().toExtend<SpecUsage>();
    expectTypeOf<V4.LanguageModelV4Usage>().toExtend<SpecUsage>();
    expectTypeOf<PartOf<V3.LanguageModelV3Content, 'text' | 'tool-call'>>().toExtend<SpecContent>();
    expectTypeOf<PartOf<V4.LanguageModelV4Content, 'text' | 'tool-call'>>().toExtend<SpecContent>();
    expectTypeOf<V4.LanguageModelV4GenerateResult['structuredOutputText']>().toExtend<string | undefined>();
    type Read = 'text-delta' | 'tool-input-start' | 'tool-input-delta' | 'tool-call' | 'finish' | 'error';
    expectTypeOf<PartOf<V3.LanguageModelV3StreamPart, Read>>().toExtend<SpecStreamPart>();
    expectTypeOf<PartOf<V4.LanguageModelV4StreamPart, Read>>().toExtend<SpecStreamPart>();
  });
});
