/**
 * Provider-spec v3 parts for the `aiSdkModel` tests: a usage record, streams built from parts, and a
 * `MockLanguageModelV3` (from `ai/test`) that plays a list of steps, one per call, streamed or
 * generated alike.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** v3's nested usage with the given totals. */
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

type Step = MockStep | ((options: LanguageModelV3CallOptions) => MockStep);

/**
 * A mock model. Given a list of steps it is stateless, like `scriptedModel`: it plays the step
 * numbered by the assistant messages already in the prompt, so a fresh instance in another process
 * goes on where the run stopped. Given one step it plays it on every call. A step may be a function
 * of the call's options (e.g. to read the prompt).
 */
export function mockModel(steps: Step[] | Step) {
  const next = (options: LanguageModelV3CallOptions): MockStep => {
    const index = options.prompt.filter((message) => message.role === 'assistant').length;
    const step = Array.isArray(steps) ? steps[index] : steps;
    if (!step) throw new Error(`the mock model has no step ${index}`);
    return typeof step === 'function' ? step(options) : step;
  };
  return new MockLanguageModelV3({
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
