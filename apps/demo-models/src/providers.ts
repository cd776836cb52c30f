/**
 * The providers the demos know, each an AI SDK 6 provider package (`@ai-sdk/openai@3`,
 * `@ai-sdk/anthropic@3`: their newer majors need Node 22) with the variables its own SDK reads:
 * - `openai`: OpenAI's Responses API, what `@ai-sdk/openai`'s default model uses;
 * - `openai-chat`: Chat Completions, for OpenAI-compatible servers at `OPENAI_BASE_URL` (vLLM,
 *   Ollama, LM Studio…), which the demo CLI used to reach through `openAIModel`;
 * - `anthropic`: Anthropic's Messages API.
 * The packages are imported when a model is made, never before.
 */
import type { AiSdkModelOptions, aiSdkModel } from '@turnkit/adapters/ai-sdk';

/** A provider's model, as `aiSdkModel` takes it (provider spec v3). */
type LanguageModel = Parameters<typeof aiSdkModel>[0];

export type ProviderName = 'openai' | 'openai-chat' | 'anthropic';

/** What a demo needs to know about one provider. */
export interface Provider {
  name: ProviderName;
  /** For help texts: `OpenAI (Responses API)`. */
  title: string;
  keyVariable: string;
  baseUrlVariable: string;
  defaultBaseURL: string;
  /** Call settings `aiSdkModel` passes on every call. */
  settings: AiSdkModelOptions;
  create(modelId: string, connection: { apiKey: string; baseURL: string }): Promise<LanguageModel>;
}

const openAI = async (connection: { apiKey: string; baseURL: string }) =>
  (await import('@ai-sdk/openai')).createOpenAI(connection);

export const PROVIDERS: readonly Provider[] = [
  {
    name: 'openai',
    title: 'OpenAI (Responses API)',
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseURL: 'https://api.openai.com/v1',
    settings: {},
    create: async (modelId, connection) => (await openAI(connection)).responses(modelId),
  },
  {
    name: 'openai-chat',
    title: 'OpenAI-compatible Chat Completions',
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseURL: 'https://api.openai.com/v1',
    settings: {},
    create: async (modelId, connection) => (await openAI(connection)).chat(modelId),
  },
  {
    name: 'anthropic',
    title: 'Anthropic (Messages API)',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    defaultBaseURL: 'https://api.anthropic.com/v1',
    // Without it the provider asks for the model's maximum.
    settings: { maxOutputTokens: 4096 },
    create: async (modelId, connection) =>
      (await import('@ai-sdk/anthropic')).createAnthropic(connection)(modelId),
  },
];

/** The provider called `name` (case-insensitive), if the demos know it. */
export function findProvider(name: string): Provider | undefined {
  return PROVIDERS.find((provider) => provider.name === name.toLowerCase());
}
