/**
 * @turnkit/core — a stateless, turn-based agent loop with explicit pause/resume.
 * The public API, in one list.
 */
export { defineAgent } from './agent.js';
export type { Agent, AgentConfig, ParallelQuestionPolicy } from './agent.js';
export { defineTool, askUserQuestion, hashSchema } from './tools.js';
export type {
  ApprovalDecider,
  AskUserQuestionOptions,
  FunctionTool,
  FunctionToolConfig,
  QuestionTool,
  Tool,
  ToolContext,
} from './tools.js';
export { runTurn } from './loop.js';
export type { RunTurnRequest } from './loop.js';
export { respond, answerQuestion, approve, reject, cancelQuestion, expire } from './respond.js';
export type { ResponseInput } from './respond.js';
export { parseSnapshot, SNAPSHOT_VERSION } from './snapshot.js';
export type { DecodedSnapshot } from './snapshot.js';
export { agentMachine } from './machine.js';
export type {
  LoopContext,
  LoopEvent,
  LoopStateName,
  ResolvedRecord,
  StepCall,
  StoredInteraction,
} from './machine.js';
export { createSessions } from './sessions.js';
export type { SessionResult, Sessions, SessionsConfig, SessionStart } from './sessions.js';
export { memoryStore, staleWriteError } from './stores.js';
export type { PutOptions, SnapshotStore, StoredSnapshot } from './stores.js';
export { toolErrorResult } from './results.js';
export type { ToolErrorCode } from './results.js';
export {
  DEFAULT_QUESTION_LIMITS,
  defaultQuestionDescription,
  formatAnswersResult,
  normalizeAnswers,
  parseQuestionInput,
  resolveQuestionLimits,
} from './questions/index.js';
export type { NormalizedAnswer, QuestionLimits } from './questions/index.js';
export {
  AnswerError,
  ConflictError,
  ModelError,
  SnapshotError,
  StateError,
  TurnkitError,
} from './errors.js';
export type { AnswerIssue, TurnkitErrorCode } from './errors.js';
export type * from './types.js';
