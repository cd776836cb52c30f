/** @turnkit/core/testing — helpers for tests and offline demos. */

export type { ScriptedModelOptions, ScriptedStep, ScriptedToolCall } from './scripted-model.js';
export { scriptedModel } from './scripted-model.js';
