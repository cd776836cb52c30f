/**
 * Where the loop finds the hook machinery (DESIGN §18, §26): every hook made by `defineHook` (or
 * `toolPolicy`) carries it under `HOOKS`, so the loop reaches it through the run's hooks — the
 * playing agent's (DESIGN §27), then, for the top run, the call's — and a program whose agents
 * have no hooks bundles none of it. With no hooks, every point lets things go on as they are.
 */
import { TurnkitError } from '../errors.js';
import { HOOKS } from '../keys.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import type { GoOn } from './hook-calls.js';
import type { HookRuntime } from './hook-machinery.js';
import type { Run } from './run.js';

type Carrier = { [HOOKS]?: HookRuntime };

/** The machinery the run's hooks carry, or none when the run has no hooks. */
export function hookRuntime(run: Run): HookRuntime | undefined {
  // defineAgent checked the agent's hooks: each carries it. The call's are checked here.
  const own = run.agent.hooks?.[0] as Carrier | undefined;
  if (own) return own[HOOKS];
  const extra = run.parent ? undefined : run.options.hooks;
  if (!extra || extra.length === 0) return undefined;
  const carried = (extra[0] as Carrier | undefined)?.[HOOKS];
  if (carried) return carried;
  throw new TurnkitError(
    'CONFIG_INVALID',
    `Agent ${run.agent.name} with TurnOptions.hooks: each hook must be made by defineHook or toolPolicy.`,
  );
}

/**
 * The machinery for a run a hook paused or stopped (a review to decide or going on, a hook's
 * question, a point held after a hook failed): it needs its hooks, so none is CONFIG_INVALID.
 */
export function hooksFor(run: Run): HookRuntime {
  const runtime = hookRuntime(run);
  if (runtime) return runtime;
  throw new TurnkitError(
    'CONFIG_INVALID',
    `The run of agent ${run.agent.name} waits on a hook's review or question, or was stopped by a hook (DESIGN §26), but it has no hooks: resume it with the agent and the TurnOptions.hooks it was started with.`,
  );
}

/** A call's `beforeTool` point, then `goOn` when it let the call go (with no hooks, straight on). */
export async function beforeTool<T>(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  goOn: GoOn<T>,
) {
  const hooks = hookRuntime(run);
  if (!hooks) return goOn(input, call.function.arguments === '' ? '{}' : call.function.arguments);
  return hooks.afterBefore(await hooks.beforeToolPoint(run, tool, call, input), goOn);
}

/** A call's `afterTool` point on what its tool returned (with no hooks, the result as it is). */
export function afterTool(run: Run, tool: AnyFunctionTool, call: ToolCall, input: unknown, result: string) {
  return hookRuntime(run)?.afterToolPoint(run, tool, call, input, result) ?? { result };
}
