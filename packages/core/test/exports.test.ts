/**
 * The public API's runtime exports, pinned (issue 10: the core's regrouping changed no export). A
 * name added or removed fails here on purpose: change the list in the same commit as `index.ts`.
 * Names leave the root only on purpose, said here: the kit for writing a store moved to
 * `@turnkit/core/store` (issue 43, before 1.0).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  AnyAgent,
  Instructions,
  InstructionsContext,
  ModelSettings,
  ResponseFormat,
  TurnResultFields,
} from '../src/index.js';
import * as core from '../src/index.js';
import * as store from '../src/store.js';
import * as testing from '../src/testing/index.js';

/** `@turnkit/core`'s runtime exports in the first release (11f6529). */
const FIRST_RELEASE = [
  'AnswerError',
  'ConflictError',
  'DEFAULT_QUESTION_LIMITS',
  'ModelError',
  'SNAPSHOT_VERSION',
  'SnapshotError',
  'StateError',
  'TurnkitError',
  'agentMachine',
  'agentTool',
  'answerQuestion',
  'answerSubagentTool',
  'approve',
  'askUserQuestion',
  'cancelQuestion',
  'createSessions',
  'defaultQuestionDescription',
  'defineAgent',
  'defineTool',
  'expire',
  'formatAnswersResult',
  'hashSchema',
  'memoryStore',
  'normalizeAnswers',
  'parseQuestionInput',
  'parseSnapshot',
  'readSnapshotHeader',
  'reject',
  'resolveQuestionLimits',
  'respond',
  'runTurn',
  'toolErrorResult',
];

/** Added since: tools that ask (13, 14), the store contract and row layout (11, 19), background turns (21), stop, the inbox index and answer links (31), long runs (33), options that carry their code (27: `compaction`, `defineTelemetry`), handoffs (45). */
const ADDED = [
  'compaction',
  'defineTelemetry',
  'DEFAULT_KEEP_RECENT',
  'estimateTokens',
  'handoff',
  'SHELL_ASK_USAGE',
  'LinkError',
  'provideInput',
  'shellAskTool',
  'shellWords',
  // Hooks and policies that can ask (DESIGN §26, issue 44).
  'defineHook',
  'toolPolicy',
];

/**
 * `@turnkit/core/store`, the kit for writing a store (issue 43): `staleWriteError` of the first
 * release and the names added for stores since, none of them exported from the root any more.
 */
const STORE_KIT = [
  'TAKEOVER_SEQ_GAP',
  'assembleSnapshot',
  'checkLeaseMs',
  'joinLog',
  'LOG_CHUNK_CHARS',
  'leaseHeldError',
  'logChunks',
  'matchesPending',
  'notInPartsError',
  'pendingKey',
  'pointsToKeep',
  'staleWriteError',
  'stopMarkOf',
];

describe('@turnkit/core exports', () => {
  it('keeps every name of the first release and adds only the listed ones', () => {
    expect(Object.keys(core).sort()).toEqual([...FIRST_RELEASE, ...ADDED].sort());
  });

  it('exports the kit for writing a store from @turnkit/core/store, and none of it from the root', () => {
    expect(Object.keys(store).sort()).toEqual([...STORE_KIT].sort());
    for (const name of STORE_KIT) expect(core).not.toHaveProperty(name);
  });

  it('exports the scripted model, recordings and replay (DESIGN §28) from @turnkit/core/testing', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'RECORDING_FORMAT',
      'RECORDING_VERSION',
      'assertReplay',
      'formatDivergences',
      'readRecording',
      'recordedModel',
      'recordingOf',
      'recordingOfRun',
      'replay',
      'scriptedModel',
    ]);
  });

  it('exports the types of agent essentials (DESIGN §23) from @turnkit/core', () => {
    // Types only: the compiler checks this list (a name missing from the index fails typecheck).
    expectTypeOf<ModelSettings>().toBeObject();
    expectTypeOf<ResponseFormat>().toHaveProperty('schema');
    expectTypeOf<TurnResultFields>().toHaveProperty('output');
    expectTypeOf<InstructionsContext>().toHaveProperty('agentPath');
    expectTypeOf<Instructions>().not.toBeNever();
    expectTypeOf<AnyAgent>().toHaveProperty('responseFormat');
  });
});
