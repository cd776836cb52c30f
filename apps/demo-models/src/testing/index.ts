/**
 * @turnkit/demo-models/testing — for the demos' tests: a loopback server speaking OpenAI's
 * Responses and Chat Completions APIs and Anthropic's Messages API, whose model asks one question
 * and then repeats the answer.
 */
export type { FakeApi, FakeProviders, SeenRequest } from './fake-providers.js';
export { FAKE_QUESTION, startFakeProviders } from './fake-providers.js';
