/**
 * The hook machinery a hook carries (DESIGN §18's size budget, §26): what the loop calls at the
 * four points, a point picked up again after a review, and deciding a review or a hook's question.
 * `defineHook` and `toolPolicy` (define-hooks.ts) put this module under `HOOKS` on every hook they
 * make; the loop reaches it through the run's hooks (hook-runtime.ts), so a program whose agents
 * have no hooks bundles none of it.
 */
export { decideReview, expiredReview, hookAnswered } from '../hooks/index.js';
export { afterBefore, resumeReviewed } from './hook-calls.js';
export { hookError, hookInputKey, reviewDeps } from './hook-points.js';
export {
  afterModelPoint,
  beforeModelPoint,
  messageOf,
  modelPoint,
  responseSubject,
  resumedModelPoint,
} from './model-hooks.js';
export { afterToolPoint, beforeToolPoint } from './tool-hooks.js';

/** The machinery a hook carries, as the loop calls it. */
export type HookRuntime = typeof import('./hook-machinery.js');
