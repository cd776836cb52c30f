/**
 * The AI SDK *model* adapter: any AI SDK 6 or 7 provider model (provider spec v3 or v4) as a
 * TurnKit `ModelAdapter`. Published at `@turnkit/adapters/ai-sdk` beside the `useChat` protocol,
 * which lives apart in `protocols/ai-sdk-ui/`.
 */
export type { AiSdkCallSettings, AiSdkLanguageModel, AiSdkModelOptions } from './model.js';
export { aiSdkModel } from './model.js';
