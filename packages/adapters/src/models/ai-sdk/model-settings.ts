/**
 * What `request.settings` and `request.responseFormat` (DESIGN §23) become in provider-spec v3 call
 * options, over the settings given to `aiSdkModel` itself (the request's win, field by field;
 * `providerOptions` per provider key).
 */
import type { JSONSchema7, LanguageModelV3CallOptions, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ModelRequest, ModelSettings } from '@turnkit/core';

/** The v3 call settings `aiSdkModel` passes on every call (all but what TurnKit sets itself). */
export type AiSdkCallSettings = Omit<
  LanguageModelV3CallOptions,
  'prompt' | 'tools' | 'abortSignal' | 'includeRawChunks'
>;

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
    merged.responseFormat = { type: 'json', schema: schema as JSONSchema7, name };
  }
  const providerOptions = mergeProviderOptions(
    defaults.providerOptions,
    parallelOption(settings.parallelToolCalls, provider),
    settings.providerOptions as SharedV3ProviderOptions | undefined,
  );
  if (providerOptions) merged.providerOptions = providerOptions;
  return merged;
}

/**
 * `parallelToolCalls` has no v3 call setting: the providers that know it read it from their own
 * options — `@ai-sdk/openai` as `openai.parallelToolCalls`, `@ai-sdk/anthropic` as
 * `anthropic.disableParallelToolUse`. Other providers get nothing (pass their own option in
 * `providerOptions`).
 */
function parallelOption(
  parallel: boolean | undefined,
  provider: string,
): SharedV3ProviderOptions | undefined {
  if (parallel === undefined) return undefined;
  if (provider.startsWith('openai.')) return { openai: { parallelToolCalls: parallel } };
  if (provider.startsWith('anthropic.')) return { anthropic: { disableParallelToolUse: !parallel } };
  return undefined;
}

/** Later options over earlier ones, per provider key. */
function mergeProviderOptions(
  ...layers: Array<SharedV3ProviderOptions | undefined>
): SharedV3ProviderOptions | undefined {
  let merged: SharedV3ProviderOptions | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    merged ??= {};
    for (const [provider, options] of Object.entries(layer)) {
      merged[provider] = { ...merged[provider], ...options };
    }
  }
  return merged;
}
