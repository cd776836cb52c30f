/**
 * Checking an agent's (or a call's) list of hooks, and the points hooks run at. Kept apart from
 * the hook machinery: every agent is checked, and a program without hooks bundles none of that.
 */
import { TurnkitError } from '../errors.js';
import { carries, HOOKS } from '../keys.js';
import type { AnyHook, HookPoint } from './define-hook.js';

/** The points in the order a step meets them. */
export const HOOK_POINTS: readonly HookPoint[] = ['beforeModel', 'afterModel', 'beforeTool', 'afterTool'];

/**
 * Checks a list of hooks (an agent's, or a call's): hooks made by `defineHook` (or `toolPolicy`),
 * which carry the machinery that runs them, with unique names, so a review names the hook that
 * asked and a resume finds it again.
 */
export function checkHooks(owner: string, hooks: unknown): AnyHook[] {
  if (!Array.isArray(hooks)) throw new TurnkitError('CONFIG_INVALID', `${owner}: hooks must be an array.`);
  const names = new Set<string>();
  for (const hook of hooks as AnyHook[]) {
    if (hook?.kind !== 'hook' || !carries(hook, HOOKS)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${owner}: each hook must be made by defineHook or toolPolicy.`,
      );
    }
    if (names.has(hook.name)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `${owner} has two hooks named ${hook.name}: hook names must be unique.`,
      );
    }
    names.add(hook.name);
  }
  return hooks as AnyHook[];
}
