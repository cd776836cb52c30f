/**
 * `aiSdkModel(languageModel)`: any AI SDK 6 provider model (provider spec v3 — `@ai-sdk/openai@3`,
 * `@ai-sdk/anthropic@3`, `@ai-sdk/openai-compatible@2` and the other providers of the AI SDK 6 line)
 * as a TurnKit `ModelAdapter` (DESIGN §15). It calls the model's `doStream` / `doGenerate` directly,
 * without the `ai` package: the transcript and tools are converted to the v3 prompt and back (tool-call
 * ids kept), deltas stream to `onDelta`, failures are retried as `ai` would (providers do not retry)
 * and end as `ModelError` with a status and a public message.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { type ModelAdapter, type ModelRequest, type ModelResponse, TurnkitError } from '@turnkit/core';
import { fromContent, toPrompt, toResponse, toTools, toUsage } from './model-convert.js';
import {
  abortError,
  isRetryable,
  type ModelCallContext,
  retryDelayMs,
  toModelError,
} from './model-errors.js';
import { type AiSdkCallSettings, callSettings } from './model-settings.js';
import { readStream, type StreamProgress } from './model-stream.js';

export type { AiSdkCallSettings } from './model-settings.js';

/** Options of {@link aiSdkModel}: any v3 call setting, plus how the adapter calls the model. */
export interface AiSdkModelOptions extends AiSdkCallSettings {
  /** The adapter's `name` (in events and `chat {model}` spans). Default `<provider>:<modelId>`, e.g. `anthropic:claude-sonnet-4-5`. */
  name?: string;
  /** Stream (`doStream`) when the caller listens for deltas. Default true; false always uses `doGenerate`. */
  stream?: boolean;
  /** Retries of failures the provider marks retryable (408, 409, 429, 5xx, a lost connection). Default 2. */
  maxRetries?: number;
}

/**
 * A {@link ModelAdapter} on an AI SDK 6 provider model (`LanguageModelV3`).
 *
 * - With `onDelta` (the loop always passes one) it streams: text deltas reach `onDelta` in order,
 *   tool calls come from the stream's `tool-call` parts; otherwise, or with `stream: false`, it
 *   calls `doGenerate`.
 * - Tool calls keep the provider's ids; arguments are the JSON text the model produced.
 * - Usage is the v3 totals (`inputTokens.total`, `outputTokens.total`).
 * - Failures the provider marks retryable are retried `maxRetries` times (honouring `retry-after`),
 *   never once text has streamed; then they become `ModelError` with the HTTP `status`, a `message`
 *   for operators (the provider's text, URL and model id) and a `publicMessage` for clients.
 * - An aborted `signal` cancels the call and rejects with an `AbortError`: the turn ends `aborted`.
 *
 * - `request.settings` (the agent's `modelSettings` merged with the call's) win over the options
 *   given here: `temperature`, `topP`, `maxOutputTokens`, `toolChoice` (a named tool as
 *   `{ type: 'tool', toolName }`), `stopSequences` (from `stop`), `seed`, and `providerOptions` as
 *   given (per provider key). `parallelToolCalls` has no v3 setting: it becomes
 *   `openai.parallelToolCalls` or `anthropic.disableParallelToolUse`, and is dropped for other
 *   providers. An agent's `output` is sent as `responseFormat: { type: 'json', schema, name }`,
 *   which each provider maps its own way (OpenAI: strict `json_schema`; Anthropic: its structured
 *   output or a forced JSON tool; `@ai-sdk/openai-compatible`: the schema only with
 *   `supportsStructuredOutputs: true`, else plain JSON mode).
 *
 * Anthropic models need `maxOutputTokens` (without it the provider asks for the model's maximum).
 *
 * @throws TurnkitError `CONFIG_INVALID` when the model does not implement provider spec v3.
 * @example
 * import { createAnthropic } from '@ai-sdk/anthropic';
 * const model = aiSdkModel(createAnthropic()('claude-sonnet-4-5'), { maxOutputTokens: 2048 });
 */
export function aiSdkModel(languageModel: LanguageModelV3, options: AiSdkModelOptions = {}): ModelAdapter {
  const spec: unknown = (languageModel as { specificationVersion?: unknown } | null)?.specificationVersion;
  if (spec !== 'v3') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `aiSdkModel needs an AI SDK 6 provider model (provider spec v3), got ${spec === undefined ? 'no model' : `spec ${String(spec)}`}. ` +
        'Install the AI SDK 6 line of the provider (@ai-sdk/openai@3, @ai-sdk/anthropic@3, @ai-sdk/openai-compatible@2…).',
    );
  }
  const { name, stream = true, maxRetries = 2, ...settings } = options;
  const context: ModelCallContext = {
    provider: languageModel.provider,
    modelId: languageModel.modelId,
    attempts: maxRetries + 1,
  };

  return {
    name: name ?? `${languageModel.provider.split('.')[0]}:${languageModel.modelId}`,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { signal, onDelta } = request;
      if (signal?.aborted) throw abortError(signal);
      const { toolChoice, ...perCall } = callSettings(settings, request, languageModel.provider);
      const callOptions: LanguageModelV3CallOptions = {
        ...perCall,
        prompt: toPrompt(request.messages),
        ...(request.tools.length > 0
          ? { tools: toTools(request.tools), toolChoice: toolChoice ?? { type: 'auto' } }
          : {}),
        ...(signal ? { abortSignal: signal } : {}),
      };
      const progress: StreamProgress = { emitted: false };
      const once = async (): Promise<ModelResponse> => {
        if (stream && onDelta) {
          const result = await languageModel.doStream(callOptions);
          return readStream(result.stream, onDelta, signal, progress);
        }
        const result = await languageModel.doGenerate(callOptions);
        const { text, toolCalls } = fromContent(result.content);
        return toResponse(text, toolCalls, toUsage(result.usage));
      };
      try {
        const response = await untilAborted(withRetries(once, maxRetries, progress, signal), signal);
        // A stream cut by the abort must not pass for a whole answer.
        if (signal?.aborted) throw abortError(signal);
        return response;
      } catch (error) {
        throw toModelError(error, context, signal);
      }
    },
  };
}

/** Calls `once` until it succeeds, fails for good, or has failed `1 + maxRetries` times. */
async function withRetries<T>(
  once: () => Promise<T>,
  maxRetries: number,
  progress: StreamProgress,
  signal: AbortSignal | undefined,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await once();
    } catch (error) {
      if (retry >= maxRetries || progress.emitted || signal?.aborted || !isRetryable(error)) throw error;
      await delay(retryDelayMs(error, retry), undefined, { signal }).catch(() => {});
      if (signal?.aborted) throw abortError(signal, error);
    }
  }
}

/**
 * Settles with the call, or rejects with an AbortError as soon as the signal aborts: a provider (or a
 * test double) that ignores `abortSignal`, or a retry's backoff, must not hold the turn.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}
