/**
 * What `request.settings` and `request.responseFormat` (DESIGN §23) become in provider-spec call
 * options (the same fields in v3 and v4), over the settings given to `aiSdkModel` itself (the
 * request's win, field by field; `providerOptions` per provider key).
 */
import type { ModelRequest, ModelSettings } from '@turnkit/core';
import type { AiSdkProviderOptions, AiSdkToolChoice, JsonSchema } from './model-spec.js';

/**
 * The call settings `aiSdkModel` passes on every call: the provider spec's call options (v3 and v4
 * alike) but for what TurnKit sets itself (prompt, tools, abort signal).
 */
export interface AiSdkCallSettings {
  /** Maximum tokens to generate. Anthropic models need it (without it the provider asks for the model's maximum). */
  maxOutputTokens?: number;
  /** Sampling temperature; the range depends on the provider. */
  temperature?: number;
  /** Text that stops the generation. */
  stopSequences?: string[];
  /** Nucleus sampling. */
  topP?: number;
  /** Sample only from the top K tokens. */
  topK?: number;
  /** Penalty for repeating what the prompt already holds. */
  presencePenalty?: number;
  /** Penalty for repeating the same words. */
  frequencyPenalty?: number;
  /** Seed for deterministic sampling, where the model supports it. */
  seed?: number;
  /** How the model picks a tool when the request has tools. Default `{ type: 'auto' }`. */
  toolChoice?: AiSdkToolChoice;
  /** Text or JSON output; an agent's `output` sets it per call. */
  responseFormat?:
    | { type: 'text' }
    | { type: 'json'; schema?: JsonSchema; name?: string; description?: string };
  /** Extra HTTP headers for HTTP-based providers. */
  headers?: Record<string, string | undefined>;
  /** Options per provider key, passed as given (`{ anthropic: { thinking: … } }`). */
  providerOptions?: AiSdkProviderOptions;
  /**
   * The portable reasoning effort of provider spec v4 (AI SDK 7 providers). AI SDK 6 providers have
   * no such setting: `aiSdkModel` refuses it for a v3 model (use that provider's `providerOptions`).
   */
  reasoning?: 'provider-default' | 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
}

/** The call options from the adapter's defaults and the request's settings and output format. */
export function callSettings(
  defaults: AiSdkCallSettings,
  request: ModelRequest,
  provider: string,
): AiSdkCallSettings {
  const settings: ModelSettings = request.settings ?? {};
  const merged: AiSdkCallSettings = { ...defaults };
  if (settings.temperature !== undefined) merged.temperature = settings.temperature;
  if (settings.topP !== undefined) merged.topP = settings.topP;
  if (settings.maxOutputTokens !== undefined) merged.maxOutputTokens = settings.maxOutputTokens;
  if (settings.stop !== undefined) merged.stopSequences = settings.stop;
  if (settings.seed !== undefined) merged.seed = settings.seed;
  if (settings.toolChoice !== undefined) {
    const choice = settings.toolChoice;
    merged.toolChoice =
      typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
  }
  if (request.responseFormat) {
    const { name, schema } = request.responseFormat;
    merged.responseFormat = { type: 'json', schema: schema as JsonSchema, name };
  }
  const providerOptions = mergeProviderOptions(
    defaults.providerOptions,
    parallelOption(settings.parallelToolCalls, provider),
    settings.providerOptions as AiSdkProviderOptions | undefined,
  );
  if (providerOptions) merged.providerOptions = providerOptions;
  return merged;
}

/**
 * `parallelToolCalls` has no call setting in either spec: the providers that know it read it from
 * their own options — `@ai-sdk/openai` as `openai.parallelToolCalls`, `@ai-sdk/anthropic` as
 * `anthropic.disableParallelToolUse` (the same keys in their AI SDK 6 and 7 lines). Other providers
 * get nothing (pass their own option in `providerOptions`).
 */
function parallelOption(parallel: boolean | undefined, provider: string): AiSdkProviderOptions | undefined {
  if (parallel === undefined) return undefined;
  if (provider.startsWith('openai.')) return { openai: { parallelToolCalls: parallel } };
  if (provider.startsWith('anthropic.')) return { anthropic: { disableParallelToolUse: !parallel } };
  return undefined;
}

/** Later options over earlier ones, per provider key. */
function mergeProviderOptions(
  ...layers: Array<AiSdkProviderOptions | undefined>
): AiSdkProviderOptions | undefined {
  let merged: AiSdkProviderOptions | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    merged ??= {};
    for (const [provider, options] of Object.entries(layer)) {
      merged[provider] = { ...merged[provider], ...options };
    }
  }
  return merged;
}
