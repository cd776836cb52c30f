/** Hooks and policies that can ask (DESIGN §26): defining them, running a point's chain, reviews. */
export {
  applyDecision,
  type ChainOutcome,
  type DecisionName,
  type HookFailure,
  hookErrorMessage,
  type PointHost,
  resumeHook,
  runChain,
} from './chain.js';
export { checkHooks, HOOK_POINTS } from './check.js';
export {
  type AnyHook,
  type Hook,
  type HookAsk,
  type HookCall,
  type HookConfig,
  type HookContext,
  type HookDecision,
  type HookFunctions,
  type HookModelRequest,
  type HookModelResponse,
  type HookPoint,
  type HookQuestion,
  hookFrom,
} from './define-hook.js';
export { reviewPayload } from './payload.js';
export { canonicalJson, inputKey, isRemembered, rememberKey, TOOL_APPROVAL } from './remembered.js';
export {
  decideReview,
  deniedResult,
  expiredReview,
  hookAnswered,
  type ReviewDeps,
  type ReviewResponse,
} from './review.js';
export { policyHook, type ToolPolicyConfig, type ToolRule } from './tool-policy.js';
