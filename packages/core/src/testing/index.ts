/** @turnkit/core/testing — helpers for tests and offline demos: the scripted model, recordings and replay. */

export { type Divergence, type DivergenceKind, formatDivergences } from './divergence.js';
export { type RecordedModelOptions, recordedModel } from './recorded-model.js';
export { type RecordingOfOptions, type RecordingSource, recordingOf } from './recording.js';
export {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordedAsk,
  type RecordedDecision,
  type RecordedHandoff,
  type RecordedLateInput,
  type RecordedResponse,
  type RecordedResult,
  type RecordedStep,
  type RecordedTrigger,
  type RecordedTurn,
  type Recording,
  readRecording,
} from './recording-format.js';
export { recordingOfRun } from './recording-run.js';
export { assertReplay, type ReplayOptions, type ReplayResult, replay } from './replay.js';
export type { ScriptedModelOptions, ScriptedStep, ScriptedToolCall } from './scripted-model.js';
export { scriptedModel } from './scripted-model.js';
