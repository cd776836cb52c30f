/**
 * The interpreter: runs the machine's effects (model calls, tools, sub-agents) and the public entry
 * points that play a turn. Sessions build on the lower-level pieces exported here.
 */
export {
  type AgentTool,
  type AgentToolOptions,
  agentTool,
  answerSubagentTool,
} from './agent-tool.js';
export {
  COMPACTION_INSTRUCTION,
  compaction,
  compactionCut,
  estimateTokens,
  SUMMARY_PREFIX,
} from './compaction.js';
export { activeHandoffIn } from './decode.js';
export { defineHook, toolPolicy } from './define-hooks.js';
export { askUserQuestion, defineTool, handoff, shellAskTool } from './define-tool.js';
export { beginTurn, emit } from './events.js';
export { sendSettling } from './handoff-switch.js';
export { IN_DOUBT, markInDoubt } from './in-doubt.js';
export { continueTurn, driveToRest, sendUserMessage } from './loop.js';
export { completedOutput } from './output.js';
export {
  applyResolutions,
  checkResponses,
  prepareResolutions,
  type ResponseInput,
  responseFields,
} from './resolve.js';
export {
  type ApproveDecision,
  answerQuestion,
  approve,
  cancelQuestion,
  expire,
  provideInput,
  reject,
  respond,
} from './respond.js';
export { resultOf, statusOf, toPending } from './result.js';
export {
  decodedOf,
  encodeRun,
  type Fence,
  loadRun,
  newRun,
  newRunId,
  now,
  playing,
  type Run,
  type RunAccess,
  rootOf,
  send,
  stateOf,
  withStoreClock,
} from './run.js';
export { type RunTurnRequest, runTurn, toMessages } from './run-turn.js';
export { markClaimStarted } from './started.js';
export { defineTelemetry } from './telemetry.js';
