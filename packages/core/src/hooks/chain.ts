/**
 * Running one point's hooks (DESIGN §26): in order, each on what the one before left (rewrites
 * chain), until the first `ask` or `deny` stops the chain. A decision is checked against what its
 * point takes; a hook that throws or returns something else is a hook failure (`HOOK_ERROR`), which
 * the loop turns into a failed turn with nothing lost.
 */
import type { AnyHook, HookAsk, HookContext, HookDecision, HookPoint } from './define-hook.js';

/** The audit name of a decision, as `hook_decision` events carry it. */
export type DecisionName = 'rewrite' | 'result' | 'ask' | 'deny';

/** What the loop gives a point's chain: the hook context, and where decisions are reported. */
export interface PointHost {
  ctx: HookContext;
  /** Reports a decision (no subject text: only which hook, where, and what kind). */
  decided(hook: string, decision: DecisionName): void;
  /** Whether a remembered approval (`remember: 'run'`) stands in for this hook's ask on `subject`. */
  remembered?(hook: AnyHook, subject: unknown): boolean;
}

/** What a point's chain came to. */
export type ChainOutcome =
  /** Every hook went on: the subject as the last rewrite left it. */
  | { go: unknown }
  /** `beforeTool` gave the tool's result: the tool does not run. */
  | { result: unknown; hook: string }
  /** A hook asked: the chain stops here, on the subject as it stood. */
  | { ask: HookAsk; hook: AnyHook; index: number; subject: unknown }
  | { deny: string; hook: string }
  /** A hook threw or returned a malformed decision. */
  | { failed: HookFailure };

/** A hook that failed: which, where, and what went wrong. */
export interface HookFailure {
  hook: string;
  point: HookPoint;
  problem: string;
}

/** The public message of a hook failure: what, where, and what to do. */
export function hookErrorMessage(failure: HookFailure): string {
  return `Hook ${failure.hook} failed at ${failure.point}: ${failure.problem}. Nothing was lost: fix the hook, then retry the turn (runTurn(agent, { snapshot })); ${failure.point} runs again.`;
}

/** The key a point's rewrite uses. */
const REWRITE: Record<HookPoint, string> = {
  beforeModel: 'request',
  afterModel: 'response',
  beforeTool: 'input',
  afterTool: 'result',
};

/** What each point accepts, for the message of a malformed decision. */
const ACCEPTED: Record<HookPoint, string> = {
  beforeModel: '{ request }, { ask }, { deny }',
  afterModel: '{ response }, { ask }, { deny }',
  beforeTool: '{ input }, { result }, { ask }, { deny }',
  afterTool: '{ result }, { ask }, { deny }',
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why an `ask` cannot be made, or null. */
function askProblem(hook: AnyHook, ask: unknown): string | null {
  if (ask === true) return null;
  if (!isObject(ask)) return '`ask` must be true or an object';
  if (ask.reason !== undefined && typeof ask.reason !== 'string') return '`ask.reason` must be a string';
  if (ask.expiresInMs !== undefined && !(typeof ask.expiresInMs === 'number' && ask.expiresInMs > 0)) {
    return '`ask.expiresInMs` must be a positive number';
  }
  if (
    ask.assignees !== undefined &&
    !(Array.isArray(ask.assignees) && ask.assignees.every((item) => typeof item === 'string'))
  ) {
    return '`ask.assignees` must be an array of principals (strings)';
  }
  if ((ask.questions !== undefined || ask.input !== undefined) && typeof hook.resume !== 'function') {
    return 'it asked a question or a form but has no `resume` to take the answer';
  }
  return null;
}

/** Why a rewrite's value does not fit its point, or null. */
function rewriteProblem(point: HookPoint, value: unknown): string | null {
  if (point === 'beforeModel') {
    return isObject(value) && Array.isArray(value.messages)
      ? null
      : '`request` must be { messages, settings? }';
  }
  if (point === 'afterModel') {
    const text = isObject(value) ? value.text : undefined;
    const calls = isObject(value) ? value.toolCalls : undefined;
    if (!isObject(value) || (text !== null && typeof text !== 'string')) {
      return '`response` must be { text, toolCalls? } with text a string or null';
    }
    if (calls !== undefined && !Array.isArray(calls)) return '`response.toolCalls` must be an array';
    return null;
  }
  return null;
}

/**
 * A decision checked against its point: `null` for "go on", the decision, or why it is malformed.
 * A decision is an object with exactly one of the keys its point takes.
 */
export function checkDecision(
  hook: AnyHook,
  point: HookPoint,
  value: unknown,
): { decision: HookDecision | null } | { problem: string } {
  if (value === undefined || value === null) return { decision: null };
  const keys = isObject(value) ? Object.keys(value) : [];
  const key = keys[0];
  const allowed = [REWRITE[point], 'ask', 'deny', ...(point === 'beforeTool' ? ['result'] : [])];
  if (keys.length !== 1 || !allowed.includes(key!)) {
    return { problem: `it returned a malformed decision (expected nothing or one of ${ACCEPTED[point]})` };
  }
  const record = value as Record<string, unknown>;
  if (key === 'deny' && typeof record.deny !== 'string')
    return { problem: '`deny` must be the reason, a string' };
  if (key === 'ask') {
    const problem = askProblem(hook, record.ask);
    if (problem) return { problem };
  }
  if (key === REWRITE[point]) {
    const problem = rewriteProblem(point, record[key]);
    if (problem) return { problem };
  }
  return { decision: value as HookDecision };
}

/** The message of a thrown value, for the failure. */
function thrownText(error: unknown): string {
  try {
    return `it threw: ${error instanceof Error ? error.message : String(error)}`;
  } catch {
    return 'it threw an error that could not be read';
  }
}

/** What calling one hook function came to: its decision, checked, or what went wrong. */
type Called = { decision: HookDecision | null } | { problem: string };

const GO_ON: Called = Object.freeze({ decision: null });

/**
 * Calls one hook function with the subject; its decision, checked (a thrown error is a failure).
 * Synchronous unless the hook returned a promise: a chain of hooks that decide at once (most pass
 * through) costs no promise at all.
 */
function called(
  hook: AnyHook,
  point: HookPoint,
  invoke: (hook: AnyHook, subject: unknown) => unknown,
  subject: unknown,
): Called | Promise<Called> {
  let returned: unknown;
  try {
    returned = invoke(hook, subject);
  } catch (error) {
    return { problem: thrownText(error) };
  }
  if (returned === undefined) return GO_ON;
  if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
    return Promise.resolve(returned).then(
      (value) => checkDecision(hook, point, value),
      (error: unknown) => ({ problem: thrownText(error) }),
    );
  }
  return checkDecision(hook, point, returned);
}

/**
 * Applies one decision to the chain: a rewrite replaces the subject and the chain goes on (`next`);
 * `result`, `ask` and `deny` stop it.
 */
export function applyDecision(
  hook: AnyHook,
  index: number,
  point: HookPoint,
  decision: HookDecision,
  subject: unknown,
  host: PointHost,
): { next: unknown } | ChainOutcome {
  if ('ask' in decision) {
    if (host.remembered?.(hook, subject)) return { next: subject };
    host.decided(hook.name, 'ask');
    return { ask: decision.ask, hook, index, subject };
  }
  if ('deny' in decision) {
    host.decided(hook.name, 'deny');
    return { deny: decision.deny, hook: hook.name };
  }
  if (point === 'beforeTool' && 'result' in decision) {
    host.decided(hook.name, 'result');
    return { result: decision.result, hook: hook.name };
  }
  host.decided(hook.name, 'rewrite');
  const value = (decision as Record<string, unknown>)[REWRITE[point]];
  // A tool call keeps its id and name (only its input is rewritten); a response keeps its tool
  // calls unless the rewrite gives others.
  if (point === 'beforeTool') return { next: { ...(subject as object), input: value } };
  if (point === 'afterModel') {
    const { text, toolCalls } = value as { text: string | null; toolCalls?: unknown[] };
    return { next: { text, toolCalls: toolCalls ?? (subject as { toolCalls: unknown[] }).toolCalls } };
  }
  return { next: value };
}

/**
 * Runs `hooks[from…]` at `point` on `subject`: `invoke(hook, subject)` calls the point's function of
 * one hook (hooks without it are passed over). `check` may refuse a rewritten subject (a tool's
 * input its schema refuses): the chain stops with what it returns. Synchronous while the hooks are.
 */
export function runChain(
  hooks: readonly AnyHook[],
  point: HookPoint,
  from: number,
  subject: unknown,
  host: PointHost,
  invoke: (hook: AnyHook, subject: unknown) => unknown,
  check?: (subject: unknown, hook: string) => ChainOutcome | null,
): ChainOutcome | Promise<ChainOutcome> {
  let current = subject;
  for (let index = from; index < hooks.length; index++) {
    const hook = hooks[index]!;
    if (typeof hook[point] !== 'function') continue;
    const out = called(hook, point, invoke, current);
    if (out === GO_ON) continue;
    if (out instanceof Promise) {
      const at = index;
      const before = current;
      return out.then((settled) => {
        const step = afterCall(hook, at, point, settled, before, host, check);
        return 'outcome' in step
          ? step.outcome
          : runChain(hooks, point, at + 1, step.next, host, invoke, check);
      });
    }
    const step = afterCall(hook, index, point, out, current, host, check);
    if ('outcome' in step) return step.outcome;
    current = step.next;
  }
  return { go: current };
}

/** One hook's decision applied: the chain stops with an outcome, or goes on with the next subject. */
function afterCall(
  hook: AnyHook,
  index: number,
  point: HookPoint,
  out: Called,
  current: unknown,
  host: PointHost,
  check: ((subject: unknown, hook: string) => ChainOutcome | null) | undefined,
): { outcome: ChainOutcome } | { next: unknown } {
  if ('problem' in out) return { outcome: { failed: { hook: hook.name, point, problem: out.problem } } };
  if (out.decision === null) return { next: current };
  const applied = applyDecision(hook, index, point, out.decision, current, host);
  if (!('next' in applied)) return { outcome: applied };
  const refused = check?.(applied.next, hook.name);
  return refused ? { outcome: refused } : applied;
}

/**
 * Calls a hook's `resume` with the answer to its question or form; its decision, checked against
 * the point that asked, or the failure.
 */
export async function resumeHook(
  hook: AnyHook,
  point: HookPoint,
  answer: unknown,
  subject: unknown,
  ctx: HookContext,
): Promise<{ decision: HookDecision | null } | { failed: HookFailure }> {
  if (typeof hook.resume !== 'function') {
    return {
      failed: { hook: hook.name, point, problem: 'it has no `resume` to take the answer it asked for' },
    };
  }
  const out = await called(hook, point, (asking) => asking.resume!(answer, subject, ctx), subject);
  return 'problem' in out ? { failed: { hook: hook.name, point, problem: out.problem } } : out;
}
