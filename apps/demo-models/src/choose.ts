/**
 * Which model a demo runs on. Offline (the demo's scripted model) unless one is asked for with
 * `--model provider:model` or `TURNKIT_MODEL`; then an AI SDK 6 provider model through
 * `aiSdkModel`, its key and base URL read from the provider's usual variables. A key being set is
 * never enough to go online: the model is always named. Nothing here loads a provider package (or
 * the adapter) until a model is asked for, so the offline demos never do.
 */
import type { ModelAdapter } from '@turnkit/core';
import { findProvider, PROVIDERS, type Provider, type ProviderName } from './providers.js';

/** The variable a demo reads its model from when no `--model` is given. */
export const MODEL_VARIABLE = 'TURNKIT_MODEL';

/** Why no model could be made: a spec that cannot be read (`usage`), or no key (`missing_key`). */
export class ModelChoiceError extends Error {
  readonly kind: 'usage' | 'missing_key';

  constructor(kind: 'usage' | 'missing_key', message: string) {
    super(message);
    this.name = new.target.name;
    this.kind = kind;
  }
}

/** The model a demo runs on, and what to tell the person about it. */
export interface ModelChoice {
  /** As given: `openai:gpt-4.1-mini`. */
  spec: string;
  provider: ProviderName;
  modelId: string;
  /** Where requests go: the provider's base URL variable, else its public endpoint. */
  baseURL: string;
  /** The variable the key came from, for messages (`OPENAI_API_KEY`). */
  keyVariable: string;
  model: ModelAdapter;
}

/** Environment variables, as `process.env` has them. */
export type Env = Record<string, string | undefined>;

const EXAMPLES = 'openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5';

/** `provider:model` → its parts; anything else is a usage error that says where the spec came from. */
export function parseModelSpec(spec: string, source: string): { provider: Provider; modelId: string } {
  const colon = spec.indexOf(':');
  const name = colon === -1 ? '' : spec.slice(0, colon).trim();
  const modelId = colon === -1 ? '' : spec.slice(colon + 1).trim();
  if (name === '' || modelId === '') {
    throw new ModelChoiceError(
      'usage',
      `${source} takes provider:model, e.g. ${EXAMPLES}; got ${JSON.stringify(spec)}.`,
    );
  }
  const provider = findProvider(name);
  if (!provider) {
    const known = PROVIDERS.map((item) => item.name).join(', ');
    throw new ModelChoiceError(
      'usage',
      `${source}: unknown provider ${JSON.stringify(name)} in ${JSON.stringify(spec)}. Known providers: ${known} (e.g. ${EXAMPLES}).`,
    );
  }
  return { provider, modelId };
}

/**
 * The model named by `flag` (a `--model` value), else by `TURNKIT_MODEL`, or null when neither
 * names one: the demo runs offline.
 *
 * @throws ModelChoiceError `usage` for a spec that is not `provider:model` of a known provider,
 *   `missing_key` when the provider's key variable is not set.
 */
export async function chooseModel(flag: string | undefined, env: Env): Promise<ModelChoice | null> {
  const fromEnv = env[MODEL_VARIABLE]?.trim();
  const spec = flag ?? (fromEnv ? fromEnv : undefined);
  if (spec === undefined) return null;
  const { provider, modelId } = parseModelSpec(spec, flag !== undefined ? '--model' : MODEL_VARIABLE);
  const apiKey = env[provider.keyVariable]?.trim();
  if (!apiKey) {
    throw new ModelChoiceError(
      'missing_key',
      `${spec} needs ${provider.keyVariable}: set it (and ${provider.baseUrlVariable} for another endpoint), or leave the model out to run offline.`,
    );
  }
  const baseURL = env[provider.baseUrlVariable]?.trim() || provider.defaultBaseURL;
  // Loaded only now, so an offline demo never loads the adapter's AI SDK half.
  const { aiSdkModel } = await import('@turnkit/adapters/ai-sdk');
  const languageModel = await provider.create(modelId, { apiKey, baseURL });
  return {
    spec,
    provider: provider.name,
    modelId,
    baseURL,
    keyVariable: provider.keyVariable,
    model: aiSdkModel(languageModel, { ...provider.settings, name: spec }),
  };
}
