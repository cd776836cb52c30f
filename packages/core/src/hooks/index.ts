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
export {
  type AnyHook,
  checkHooks,
  defineHook,
  HOOK_POINTS,
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
} from './define-hook.js';
export {
  canonicalJson,
  decideReview,
  deniedResult,
  expiredReview,
  hookAnswered,
  type ReviewDeps,
  type ReviewResponse,
  rememberKey,
  reviewPayload,
} from './review.js';
export { type ToolPolicyConfig, type ToolRule, toolPolicy } from './tool-policy.js';
