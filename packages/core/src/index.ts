/**
 * @turnkit/core — a stateless, turn-based agent loop with explicit pause/resume.
 * The public API, in one list.
 */

export type { Agent, AgentConfig, ParallelQuestionPolicy } from './agent.js';
export { defineAgent } from './agent.js';
export type { AnswerIssue, TurnkitErrorCode } from './errors.js';
export {
  AnswerError,
  ConflictError,
  ModelError,
  SnapshotError,
  StateError,
  TurnkitError,
} from './errors.js';
export type { RunTurnRequest } from './loop.js';
export { runTurn } from './loop.js';
export type {
  LoopContext,
  LoopEvent,
  LoopStateName,
  ResolvedRecord,
  StepCall,
  StoredInteraction,
} from './machine.js';
export { agentMachine } from './machine.js';
export type { NormalizedAnswer, QuestionLimits } from './questions/index.js';
export {
  DEFAULT_QUESTION_LIMITS,
  defaultQuestionDescription,
  formatAnswersResult,
  normalizeAnswers,
  parseQuestionInput,
  resolveQuestionLimits,
} from './questions/index.js';
export type { ResponseInput } from './respond.js';
export { answerQuestion, approve, cancelQuestion, expire, reject, respond } from './respond.js';
export type { ToolErrorCode } from './results.js';
export { toolErrorResult } from './results.js';
export type { SessionResult, SessionStart, Sessions, SessionsConfig } from './sessions.js';
export { createSessions } from './sessions.js';
export type { DecodedSnapshot, SnapshotHeader } from './snapshot.js';
export { parseSnapshot, readSnapshotHeader, SNAPSHOT_VERSION } from './snapshot.js';
export type { PutOptions, SnapshotStore, StoredSnapshot } from './stores.js';
export { memoryStore, staleWriteError } from './stores.js';
export type { AgentTool, AgentToolOptions } from './subagents.js';
export { agentTool, answerSubagentTool } from './subagents.js';
export type {
  AnyFunctionTool,
  ApprovalDecider,
  AskUserQuestionOptions,
  FunctionTool,
  FunctionToolConfig,
  QuestionTool,
  SubagentBinding,
  SubagentQuestionPolicy,
  Tool,
  ToolContext,
} from './tools.js';
export { askUserQuestion, defineTool, hashSchema } from './tools.js';
export type * from './types.js';
