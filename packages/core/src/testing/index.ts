/** @turnkit/core/testing — helpers for tests and offline demos. */
export { scriptedModel } from './scripted-model.js';
export type { ScriptedModelOptions, ScriptedStep, ScriptedToolCall } from './scripted-model.js';
