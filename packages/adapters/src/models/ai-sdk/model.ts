/**
 * `aiSdkModel(languageModel)`: any AI SDK provider model of the AI SDK 6 line (provider spec v3 —
 * `@ai-sdk/openai@3`, `@ai-sdk/anthropic@3`, `@ai-sdk/openai-compatible@2`…) or the AI SDK 7 line
 * (spec v4 — `@ai-sdk/openai@4`, `@ai-sdk/anthropic@4`…) as a TurnKit `ModelAdapter` (DESIGN §15,
 * §25). It calls the model's `doStream` / `doGenerate` directly, without the `ai` package: the
 * transcript and tools are converted to the spec's prompt and back (tool-call ids kept), deltas
 * stream to `onDelta`, failures are retried as `ai` would (providers do not retry) and end as
 * `ModelError` with a status and a public message.
 */
import { setTimeout as delay } from 'node:timers/promises';
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
import { type AiSdkLanguageModel, type SpecCallOptions, specModel } from './model-spec.js';
import { readStream, type StreamProgress } from './model-stream.js';

export type { AiSdkCallSettings } from './model-settings.js';
export type { AiSdkLanguageModel } from './model-spec.js';

/** Options of {@link aiSdkModel}: any call setting of the provider spec, plus how the adapter calls the model. */
export interface AiSdkModelOptions extends AiSdkCallSettings {
  /** The adapter's `name` (in events and `chat {model}` spans). Default `<provider>:<modelId>`, e.g. `anthropic:claude-sonnet-4-5`. */
  name?: string | undefined;
  /** Stream (`doStream`) when the caller listens for deltas. Default true; false always uses `doGenerate`. */
  stream?: boolean | undefined;
  /** Retries of failures the provider marks retryable (408, 409, 429, 5xx, a lost connection). Default 2. */
  maxRetries?: number | undefined;
}

/**
 * A {@link ModelAdapter} on an AI SDK provider model: `LanguageModelV3` (AI SDK 6 providers) or
 * `LanguageModelV4` (AI SDK 7 providers), with the same behaviour on both.
 *
 * - With `onDelta` (the loop always passes one) it streams: text deltas reach `onDelta` in order,
 *   tool calls come from the stream's `tool-call` parts; otherwise, or with `stream: false`, it
 *   calls `doGenerate`.
 * - Tool calls keep the provider's ids; arguments are the JSON text the model produced.
 * - Usage is the spec's totals (`inputTokens.total`, `outputTokens.total`).
 * - Failures the provider marks retryable are retried `maxRetries` times (honouring `retry-after`),
 *   never once text has streamed; then they become `ModelError` with the HTTP `status`, a `message`
 *   for operators (the provider's text, URL and model id) and a `publicMessage` for clients.
 * - An aborted `signal` cancels the call and rejects with an `AbortError`: the turn ends `aborted`.
 *
 * - `request.settings` (the agent's `modelSettings` merged with the call's) win over the options
 *   given here: `temperature`, `topP`, `maxOutputTokens`, `toolChoice` (a named tool as
 *   `{ type: 'tool', toolName }`), `stopSequences` (from `stop`), `seed`, and `providerOptions` as
 *   given (per provider key). `parallelToolCalls` has no spec setting: it becomes
 *   `openai.parallelToolCalls` or `anthropic.disableParallelToolUse`, and is dropped for other
 *   providers. An agent's `output` is sent as `responseFormat: { type: 'json', schema, name }`,
 *   which each provider maps its own way (OpenAI: strict `json_schema`; Anthropic: its structured
 *   output or a forced JSON tool; `@ai-sdk/openai-compatible`: the schema only with
 *   `supportsStructuredOutputs: true`, else plain JSON mode). When a v4 provider names the text to
 *   parse (`structuredOutputText`: OpenAI Responses drafts, then a final answer), that text is the
 *   answer of a generated (not streamed) call.
 * - A v4 stream that the provider marks `interrupted` (cut without a completion signal) is a
 *   failure, retried like a stream that ends without its finish.
 *
 * Anthropic models need `maxOutputTokens` (without it the provider asks for the model's maximum).
 *
 * @throws TurnkitError `CONFIG_INVALID` when the model implements neither provider spec v3 nor v4
 * (e.g. an AI SDK 5 model), when `maxRetries` is not a whole number ≥ 0, or when `reasoning` is
 * given for a v3 model.
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * const model = aiSdkModel(anthropic('claude-sonnet-4-5'), { maxOutputTokens: 2048 });
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): ModelAdapter {
  const model = specModel(languageModel);
  const { name, stream = true, maxRetries = 2, ...settings } = options;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `aiSdkModel: maxRetries must be a whole number of retries, 0 or more; got ${String(maxRetries)}.`,
    );
  }
  if (settings.reasoning !== undefined && model.specificationVersion === 'v3') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `aiSdkModel: reasoning is a setting of provider spec v4 (AI SDK 7), and ${model.provider} model ` +
        `"${model.modelId}" implements spec v3 (AI SDK 6). Pass the provider's own option in providerOptions ` +
        "(e.g. { openai: { reasoningEffort: 'low' } }), or use the provider's AI SDK 7 line.",
    );
  }
  const context: ModelCallContext = {
    provider: model.provider,
    modelId: model.modelId,
    attempts: maxRetries + 1,
  };

  return {
    name: name ?? `${model.provider.split('.')[0]}:${model.modelId}`,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { signal, onDelta } = request;
      if (signal?.aborted) throw abortError(signal);
      const { toolChoice, ...perCall } = callSettings(settings, request, model.provider);
      const callOptions: SpecCallOptions = {
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
          const result = await model.doStream(callOptions);
          return readStream(result.stream, onDelta, signal, progress);
        }
        const result = await model.doGenerate(callOptions);
        const { text, toolCalls } = fromContent(result.content);
        const structured =
          callOptions.responseFormat?.type === 'json' ? result.structuredOutputText : undefined;
        return toResponse(structured ?? text, toolCalls, toUsage(result.usage));
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
