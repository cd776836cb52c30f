/**
 * @turnkit/core — a stateless, turn-based agent loop with explicit pause/resume.
 * The public API, in one list.
 */

export type { AnswerIssue, TurnkitErrorCode } from './errors.js';
export {
  AnswerError,
  ConflictError,
  LinkError,
  ModelError,
  SnapshotError,
  StateError,
  TurnkitError,
} from './errors.js';
export type { ResponseInput, RunTurnRequest } from './interpreter/index.js';
export {
  type AgentTool,
  type AgentToolOptions,
  agentTool,
  answerQuestion,
  answerSubagentTool,
  approve,
  cancelQuestion,
  estimateTokens,
  expire,
  provideInput,
  reject,
  respond,
  runTurn,
} from './interpreter/index.js';
export type {
  HistoryWindow,
  LoopContext,
  LoopEvent,
  LoopStateName,
  ResolvedRecord,
  StepCall,
  StoredInteraction,
} from './machine/index.js';
export { agentMachine } from './machine/index.js';
export type { NormalizedAnswer, QuestionLimits } from './questions/index.js';
export {
  DEFAULT_QUESTION_LIMITS,
  defaultQuestionDescription,
  formatAnswersResult,
  normalizeAnswers,
  parseQuestionInput,
  resolveQuestionLimits,
} from './questions/index.js';
export type { ToolErrorCode } from './results.js';
export { toolErrorResult } from './results.js';
export type {
  ForkAt,
  ForkRequest,
  GetOptions,
  GetPartsOptions,
  HistoryPoint,
  InboxFilter,
  InboxItem,
  InboxPage,
  KeepHistory,
  MemoryStoreOptions,
  OnInteraction,
  PartsWrite,
  PendingFilter,
  PendingIndexEntry,
  PendingItem,
  PendingPage,
  PlayOptions,
  PointReason,
  PutOptions,
  RenewOptions,
  RenewResult,
  RunHead,
  SessionOptions,
  SessionResult,
  SessionStart,
  Sessions,
  SessionsConfig,
  SnapshotStore,
  StopMark,
  StopOutcome,
  StopRequest,
  StopResult,
  StoredHead,
  StoredLease,
  StoredParts,
  StoredPoint,
  StoredSnapshot,
  SweepOptions,
  SweepResult,
  TurnClaim,
  WriteResult,
} from './sessions/index.js';
export {
  checkLeaseMs,
  createSessions,
  leaseHeldError,
  matchesPending,
  memoryStore,
  notInPartsError,
  pendingKey,
  pointsToKeep,
  staleWriteError,
  stopMarkOf,
  TAKEOVER_SEQ_GAP,
} from './sessions/index.js';
export type { DecodedSnapshot, SnapshotHeader, SnapshotParts } from './snapshot/index.js';
export {
  assembleSnapshot,
  joinLog,
  parseSnapshot,
  readSnapshotHeader,
  SNAPSHOT_VERSION,
} from './snapshot/index.js';
export type {
  Agent,
  AgentConfig,
  AnsweredQuestion,
  AnyAgent,
  AnyFunctionTool,
  ApprovalDecider,
  ApprovalPolicy,
  AskRequest,
  AskResponse,
  AskSignal,
  AskUserQuestionOptions,
  Assignees,
  CompactContext,
  CompactFunction,
  FunctionTool,
  FunctionToolConfig,
  HistoryOptions,
  InDoubtPolicy,
  Instructions,
  InstructionsContext,
  ParallelQuestionPolicy,
  QuestionInput,
  QuestionTool,
  ShellAskToolOptions,
  SubagentBinding,
  SubagentQuestionPolicy,
  SubagentRuntime,
  Tool,
  ToolContext,
} from './tools/index.js';
export {
  askUserQuestion,
  DEFAULT_KEEP_RECENT,
  defineAgent,
  defineTool,
  hashSchema,
  SHELL_ASK_USAGE,
  shellAskTool,
  shellWords,
} from './tools/index.js';
export type * from './types.js';
