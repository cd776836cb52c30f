/**
 * @turnkit/core — a stateless, turn-based agent loop with explicit pause/resume.
 * The public API, in one list: what an application uses. The kit for writing a store of your own
 * (the contract's types, the errors every store throws, the row-layout helpers) is the subpath
 * `@turnkit/core/store` (./store.ts).
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
export type {
  AnyHook,
  Hook,
  HookAsk,
  HookCall,
  HookConfig,
  HookContext,
  HookDecision,
  HookFunctions,
  HookModelRequest,
  HookModelResponse,
  HookPoint,
  HookQuestion,
  ToolPolicyConfig,
  ToolRule,
} from './hooks/index.js';
export type { ApproveDecision, ResponseInput, RunTurnRequest } from './interpreter/index.js';
export {
  type AgentTool,
  type AgentToolOptions,
  agentTool,
  answerQuestion,
  answerSubagentTool,
  approve,
  askUserQuestion,
  cancelQuestion,
  compaction,
  defineHook,
  defineTelemetry,
  defineTool,
  estimateTokens,
  expire,
  handoff,
  provideInput,
  reject,
  respond,
  runTurn,
  shellAskTool,
  toolPolicy,
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
  ExtendRequest,
  ForkAt,
  ForkRequest,
  GetOptions,
  HistoryPoint,
  InboxFilter,
  InboxItem,
  InboxPage,
  KeepHistory,
  MemoryStoreOptions,
  OnInteraction,
  PlayOptions,
  PointReason,
  RunHead,
  SendOptions,
  SessionOptions,
  SessionResult,
  SessionStart,
  Sessions,
  SessionsConfig,
  SnapshotStore,
  StopOutcome,
  StopRequest,
  StopResult,
  SweepOptions,
  SweepResult,
  TurnClaim,
} from './sessions/index.js';
export { createSessions, memoryStore } from './sessions/index.js';
export type { DecodedSnapshot, SnapshotHeader } from './snapshot/index.js';
export { parseSnapshot, readSnapshotHeader, SNAPSHOT_VERSION } from './snapshot/index.js';
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
  EscalationStep,
  FunctionTool,
  FunctionToolConfig,
  Handoff,
  HandoffEntry,
  HandoffInput,
  HandoffOptions,
  History,
  HistoryOptions,
  InDoubtPolicy,
  InputFilter,
  Instructions,
  InstructionsContext,
  InteractionNotice,
  KeptAskOptions,
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
  DEFAULT_KEEP_RECENT,
  defineAgent,
  hashSchema,
  SHELL_ASK_USAGE,
  shellWords,
} from './tools/index.js';
export type * from './types.js';
