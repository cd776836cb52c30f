/**
 * Tools and agents as plain descriptions: `defineAgent`, and the checked tools `defineTool`,
 * `askUserQuestion` and `shellAskTool` are made of (the interpreter puts on them the code that runs
 * them; `agentTool` carries the interpreter's player, so it lives there).
 */
export { BUDGET_KEYS, budgetProblems, checkBudget, checkPricing, mergeBudgets } from './budget-config.js';
export { defineAgent } from './define-agent.js';
export { hashSchema, toJsonSchema, toolFrom } from './define-tool.js';
export type * from './definitions.js';
export {
  type CompactContext,
  type CompactFunction,
  checkHistory,
  checkHistoryOptions,
  DEFAULT_KEEP_RECENT,
  type History,
  type HistoryOptions,
} from './history-config.js';
export {
  checkKeptAsk,
  type EscalationStep,
  type KeptAskOptions,
  keptAskProblem,
} from './kept-asks.js';
export { checkModelSettings, mergeModelSettings } from './model-settings.js';
export { assigneesProblem, checkApprovalPolicy, quorumProblem } from './policy.js';
export { questionToolFrom } from './question-tool.js';
export { SHELL_ASK_USAGE, type ShellAskToolOptions, shellToolFrom, shellWords } from './shell-ask-tool.js';
export { checkTelemetry } from './telemetry-config.js';
