/**
 * Provider-spec parts for the `aiSdkModel` tests: a usage record, streams built from parts, and mock
 * models of either spec — `MockLanguageModelV3` of `ai/test` (AI SDK 6) or `MockLanguageModelV4` of
 * `ai-7/test` (AI SDK 7) — that play a list of steps, one per call, streamed or generated alike.
 * The parts are written once in the v3 types: every part used here has the same shape in v4.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { MockLanguageModelV4 } from 'ai-7/test';
import type { AiSdkLanguageModel } from '../../src/models/ai-sdk/model.js';

/** The provider spec a mock implements: 3 (AI SDK 6) or 4 (AI SDK 7). */
export type SpecMajor = 3 | 4;

/** Both majors, for `describe.each`. */
export const SPEC_MAJORS: SpecMajor[] = [3, 4];

/** v3's nested usage with the given totals (the same shape in v4). */
export function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** What one model call answers: text (streamed in the given pieces) and tool calls. */
export interface MockStep {
  text?: string[];
  calls?: Array<{ id: string; name: string; input: string }>;
  usage?: LanguageModelV3Usage;
}

/** The step as generated content. */
export function content(step: MockStep): LanguageModelV3Content[] {
  const parts: LanguageModelV3Content[] = [];
  if (step.text) parts.push({ type: 'text', text: step.text.join('') });
  for (const call of step.calls ?? []) {
    parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
  }
  return parts;
}

/** The step as stream parts, as providers send them: text, then each call's input deltas and its call. */
export function streamParts(step: MockStep): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (step.text) {
    parts.push({ type: 'text-start', id: 't0' });
    for (const delta of step.text) parts.push({ type: 'text-delta', id: 't0', delta });
    parts.push({ type: 'text-end', id: 't0' });
  }
  for (const call of step.calls ?? []) {
    parts.push(
      { type: 'tool-input-start', id: call.id, toolName: call.name },
      { type: 'tool-input-delta', id: call.id, delta: call.input },
      { type: 'tool-input-end', id: call.id },
      { type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input },
    );
  }
  const calls = (step.calls?.length ?? 0) > 0;
  parts.push({
    type: 'finish',
    finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: calls ? 'tool_use' : 'end_turn' },
    usage: step.usage ?? usage(10, 5),
  });
  return parts;
}

/** A stream of the given parts. */
export function stream(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return simulateReadableStream({ chunks: parts });
}

/** A mock model of either major, with the calls it received (their options typed as v3's, the same for what TurnKit sends). */
export interface MockModel extends AiSdkLanguageModel {
  doGenerateCalls: LanguageModelV3CallOptions[];
  doStreamCalls: LanguageModelV3CallOptions[];
}

/** What a mock does on each call; unset methods throw, as in `ai/test`. */
export interface MockHandlers {
  provider?: string;
  modelId?: string;
  doGenerate?: (options: LanguageModelV3CallOptions) => PromiseLike<LanguageModelV3GenerateResult>;
  doStream?: (options: LanguageModelV3CallOptions) => PromiseLike<LanguageModelV3StreamResult>;
}

/** `MockLanguageModelV3` or `MockLanguageModelV4` with the given handlers. */
export function specMock(major: SpecMajor, handlers: MockHandlers = {}): MockModel {
  if (major === 3) return new MockLanguageModelV3(handlers);
  // The v4 mock gets the same handlers: the options and results they touch have one shape in both specs.
  return new MockLanguageModelV4(
    handlers as unknown as ConstructorParameters<typeof MockLanguageModelV4>[0],
  ) as unknown as MockModel;
}

type Step = MockStep | ((options: LanguageModelV3CallOptions) => MockStep);

/**
 * A mock model (spec v3 unless `major` says 4). Given a list of steps it is stateless, like
 * `scriptedModel`: it plays the step numbered by the assistant messages already in the prompt, so a
 * fresh instance in another process goes on where the run stopped. Given one step it plays it on
 * every call. A step may be a function of the call's options (e.g. to read the prompt).
 */
export function mockModel(steps: Step[] | Step, major: SpecMajor = 3): MockModel {
  const next = (options: LanguageModelV3CallOptions): MockStep => {
    const index = options.prompt.filter((message) => message.role === 'assistant').length;
    const step = Array.isArray(steps) ? steps[index] : steps;
    if (!step) throw new Error(`the mock model has no step ${index}`);
    return typeof step === 'function' ? step(options) : step;
  };
  return specMock(major, {
    provider: 'mock.chat',
    modelId: 'mock-1',
    doGenerate: async (options) => {
      const step = next(options);
      const calls = (step.calls?.length ?? 0) > 0;
      return {
        content: content(step),
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
        usage: step.usage ?? usage(10, 5),
        warnings: [],
      };
    },
    doStream: async (options) => ({ stream: stream(streamParts(next(options))) }),
  });
}
