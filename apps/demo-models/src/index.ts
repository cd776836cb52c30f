/**
 * @turnkit/demo-models — how the TurnKit demos run on a real model when asked to: `--model
 * provider:model` or `TURNKIT_MODEL` (offline otherwise), an AI SDK 6 provider model through
 * `aiSdkModel`, keys and base URLs from each provider's usual variables, and a failed call told in
 * one line; and the lab desk both demos hand incubator questions to (a handoff, DESIGN §27).
 * TypeScript source: the demos bundle it.
 */
export type { Env, ModelChoice } from './choose.js';
export { chooseModel, MODEL_VARIABLE, ModelChoiceError, parseModelSpec } from './choose.js';
export { DESK_AGENT, deskScript, deskStep, isDeskRequest, labDesk } from './desk.js';
export { describeModelFailure } from './failures.js';
export type { ThawPlanValue } from './plan.js';
export { sayOnly, ThawedVials, ThawPlan } from './plan.js';
export type { Provider, ProviderName } from './providers.js';
export { PROVIDERS } from './providers.js';
