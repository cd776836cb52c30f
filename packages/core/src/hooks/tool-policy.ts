/**
 * `toolPolicy` (DESIGN §26): a `beforeTool` hook made of rules. Each rule is a tool name, `'*'`, a
 * prefix (`'mcp_*'`) or `{ tool, when(input, ctx) }`; the first matching rule of `deny`, then `ask`,
 * then `allow` decides, and `default` (`'allow'` unless said) decides the rest. An asked call is a
 * review of the call: approve, approve with an edited input, or reject.
 */
import { TurnkitError } from '../errors.js';
import { type Hook, type HookContext, hookFrom } from './define-hook.js';

/** One rule: a tool name, `'*'`, a prefix ending in `*`, or a name with a condition on the input. */
export type ToolRule<Context = unknown> =
  | string
  | { tool: string; when: (input: unknown, ctx: HookContext<Context>) => boolean | Promise<boolean> };

/** What `toolPolicy` takes. */
export interface ToolPolicyConfig<Context = unknown> {
  /** Names the policy's hook (default `tool-policy`). */
  name?: string;
  allow?: ToolRule<Context>[];
  deny?: ToolRule<Context>[];
  ask?: ToolRule<Context>[];
  /** What a call no rule matches gets: `'allow'` (default), `'deny'` or `'ask'`. */
  default?: 'allow' | 'deny' | 'ask';
  /** Why a call is asked about (shown to the reviewer). */
  reason?: string;
  /** Who may decide an asked call (principals). */
  assignees?: string[];
  /** The key under which `remember: 'run'` lets later calls pass (default: the input itself). */
  rememberBy?: (input: unknown) => string;
}

function namePattern(owner: string, pattern: unknown): (name: string) => boolean {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new TurnkitError('CONFIG_INVALID', `${owner}: a rule's tool must be a non-empty string.`);
  }
  if (pattern === '*') return () => true;
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  return (name) => name === pattern;
}

type Matcher<Context> = (
  name: string,
  input: unknown,
  ctx: HookContext<Context>,
) => Promise<boolean> | boolean;

function matcherOf<Context>(owner: string, rule: ToolRule<Context>): Matcher<Context> {
  if (typeof rule === 'string') {
    const matches = namePattern(owner, rule);
    return (name) => matches(name);
  }
  if (typeof rule !== 'object' || rule === null || typeof rule.when !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: each rule must be a tool name, '*', a prefix like 'mcp_*', or { tool, when(input, ctx) }.`,
    );
  }
  const matches = namePattern(owner, rule.tool);
  return (name, input, ctx) => matches(name) && rule.when(input, ctx);
}

async function firstMatch<Context>(
  matchers: Matcher<Context>[],
  name: string,
  input: unknown,
  ctx: HookContext<Context>,
): Promise<boolean> {
  for (const matches of matchers) {
    const out = matches(name, input, ctx);
    if (typeof out === 'boolean' ? out : await out) return true;
  }
  return false;
}

/** The `beforeTool` hook of a tool policy, checked (`toolPolicy` adds the hook machinery to it). */
export function policyHook<Context = unknown>(config: ToolPolicyConfig<Context>): Hook<Context> {
  const owner = `toolPolicy ${config?.name ?? 'tool-policy'}`;
  const fallback = config?.default ?? 'allow';
  if (!['allow', 'deny', 'ask'].includes(fallback)) {
    throw new TurnkitError('CONFIG_INVALID', `${owner}: default must be 'allow', 'deny' or 'ask'.`);
  }
  const list = (rules: ToolRule<Context>[] | undefined, key: string) => {
    if (rules !== undefined && !Array.isArray(rules)) {
      throw new TurnkitError('CONFIG_INVALID', `${owner}: ${key} must be an array of rules.`);
    }
    return (rules ?? []).map((rule) => matcherOf(owner, rule));
  };
  const deny = list(config.deny, 'deny');
  const ask = list(config.ask, 'ask');
  const allow = list(config.allow, 'allow');
  const askDecision = {
    ask: {
      ...(config.reason !== undefined ? { reason: config.reason } : {}),
      ...(config.assignees !== undefined ? { assignees: config.assignees } : {}),
    },
  };
  return hookFrom<Context>({
    name: config.name ?? 'tool-policy',
    ...(config.rememberBy ? { rememberBy: config.rememberBy } : {}),
    beforeTool: async (call, ctx) => {
      if (await firstMatch(deny, call.name, call.input, ctx)) {
        return { deny: `the policy does not allow ${call.name}` };
      }
      if (await firstMatch(ask, call.name, call.input, ctx)) return askDecision;
      if (await firstMatch(allow, call.name, call.input, ctx)) return undefined;
      if (fallback === 'deny') return { deny: `the policy does not allow ${call.name}` };
      return fallback === 'ask' ? askDecision : undefined;
    },
  });
}
