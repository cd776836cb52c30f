/** @turnkit/adapters/openai — the OpenAI Chat Completions model adapter (loads `openai`). */
export type { OpenAIClient, OpenAIModelOptions } from './openai.js';
export { openAIModel } from './openai.js';
