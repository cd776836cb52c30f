/**
 * `defineHook` and `toolPolicy` (DESIGN §26), as the package exports them: the checked hook (hooks/)
 * with the machinery that runs hooks under `HOOKS` (DESIGN §18: an option that brings code carries
 * it, so a program whose agents have no hooks bundles none of it).
 */
import { type Hook, type HookConfig, hookFrom, policyHook, type ToolPolicyConfig } from '../hooks/index.js';
import { HOOKS } from '../keys.js';
import * as machinery from './hook-machinery.js';

/** `hook` with the hook machinery: an own enumerable key, so a spread copy (`{ ...hook, name }`) is still a hook. */
function carrying<T extends object>(hook: T): T {
  return Object.freeze({ ...hook, [HOOKS]: machinery });
}

/**
 * Defines a hook. Hooks run in the order they are listed (the agent's, then the call's), rewrites
 * chain, and the first `ask` or `deny` stops the chain at that point.
 *
 * @example
 * const redact = defineHook({
 *   name: 'redact-ssn',
 *   afterTool: (_call, result) => ({
 *     result: JSON.parse(JSON.stringify(result).replace(/\d{3}-\d{2}-\d{4}/g, '***-**-****')),
 *   }),
 * });
 */
export function defineHook<Context = unknown>(config: HookConfig<Context>): Hook<Context> {
  return carrying(hookFrom(config));
}

/**
 * A hook that allows, denies or asks about tool calls by rules.
 *
 * @example
 * const spending = toolPolicy({
 *   deny: ['delete_*'],
 *   ask: [{ tool: 'pay', when: (input) => (input as { amount: number }).amount > 100 }],
 * });
 * const agent = defineAgent({ name: 'shop', instructions: '…', model, tools, hooks: [spending] });
 */
export function toolPolicy<Context = unknown>(config: ToolPolicyConfig<Context>): Hook<Context> {
  return carrying(policyHook(config));
}
