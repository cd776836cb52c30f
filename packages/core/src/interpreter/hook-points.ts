/**
 * Where the loop meets the hooks (DESIGN §26), what the four points share: the run's hooks (the
 * agent's, then the call's), their `ctx` and events, a point's chain, a hook's ask as the
 * interaction to store, and a point picked up again after a review was decided — from the hook
 * after the one that asked (or, for a question, with that hook's `resume`), never from the start.
 * The tool points are tool-hooks.ts, the model points model-hooks.ts.
 */

import type { AnswerIssue } from '../errors.js';
import {
  type AnyHook,
  applyDecision,
  type ChainOutcome,
  checkHooks,
  HOOK_POINTS,
  type HookAsk,
  type HookFailure,
  type HookPoint,
  hookErrorMessage,
  inputKey,
  isRemembered,
  type PointHost,
  type ReviewDeps,
  resumeHook,
  runChain,
} from '../hooks/index.js';
import type { HookResume } from '../machine/index.js';
import type { AnyFunctionTool } from '../tools/index.js';
import { type AskDraft, askDraft } from './ask.js';
import { emit } from './events.js';
import { now, type Run } from './run.js';
import { checkToolInput } from './tool-input.js';

const NO_HOOKS: readonly AnyHook[] = Object.freeze([]);

/** `then` for a value that is a promise only when a hook was async: no promise on the common path. */
export function settle<T, R>(value: T | Promise<T>, then: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** By hook list, the points some hook of it has a function at (computed once per list). */
const pointsOf = new WeakMap<readonly AnyHook[], ReadonlySet<HookPoint>>();
const checkedCallHooks = new WeakMap<object, readonly AnyHook[]>();

/** The hooks of a run: its agent's, then (top run only) the call's. Sub-agents run their own. */
export function hooksOf(run: Run): readonly AnyHook[] {
  const own = (run.agent.hooks as readonly AnyHook[] | undefined) ?? NO_HOOKS;
  const extra = run.parent ? undefined : run.options.hooks;
  if (!extra || extra.length === 0) return own;
  let all = checkedCallHooks.get(extra);
  if (!all) {
    all = checkHooks(`Agent ${run.agent.name} with TurnOptions.hooks`, [
      ...own,
      ...(extra as readonly AnyHook[]),
    ]);
    checkedCallHooks.set(extra, all);
  }
  return all;
}

/** Whether any hook of the run has a function at `point` (so a run without hooks pays nothing). */
export function hasHooks(run: Run, point: HookPoint): boolean {
  const hooks = hooksOf(run);
  if (hooks.length === 0) return false;
  let points = pointsOf.get(hooks);
  if (!points) {
    points = new Set(HOOK_POINTS.filter((name) => hooks.some((hook) => typeof hook[name] === 'function')));
    pointsOf.set(hooks, points);
  }
  return points.has(point);
}

/** The key an approval remembered by `hook` (a hook of the run) keeps for this input. */
export function hookInputKey(run: Run, hook: string, input: unknown): string {
  return inputKey(hooksOf(run).find((item) => item.name === hook)?.rememberBy, input);
}

/** What deciding a review needs from the run: its tools' schemas and its hooks' remember keys. */
export function reviewDeps(run: Run): ReviewDeps {
  return {
    checkInput: (toolName, value) => {
      const tool = run.agent.toolIndex.get(toolName);
      if (tool?.kind !== 'function') return null;
      const checked = checkToolInput(tool, value);
      if (checked.ok) return null;
      return checked.error.issues.map(
        (issue): AnswerIssue => ({
          path: ['edit', ...issue.path.map((part) => (typeof part === 'number' ? part : String(part)))],
          message: issue.message,
        }),
      );
    },
    inputKey: (hook, input) => hookInputKey(run, hook, input),
  };
}

export function hostOf(run: Run, point: HookPoint, toolCallId?: string): PointHost {
  const modelPoint = point === 'beforeModel' || point === 'afterModel';
  return {
    ctx: {
      context: run.context,
      runId: run.runId,
      agentPath: run.agentPath,
      principal: run.options.principal,
      step: run.state.context.modelCalls + (modelPoint ? 1 : 0),
      point,
    },
    decided: (hook, decision) =>
      emit(run, { type: 'hook_decision', hook, point, decision, ...(toolCallId ? { toolCallId } : {}) }),
    ...(point === 'beforeTool'
      ? {
          remembered: (hook: AnyHook, subject: unknown) => {
            const { name, input } = subject as { name: string; input: unknown };
            return isRemembered(run.state.context.remembered, hook.name, name, () =>
              inputKey(hook.rememberBy, input),
            );
          },
        }
      : {}),
  };
}

/**
 * One point's chain for this run: its host (the hooks' `ctx`, their events) and `chain(from,
 * subject)`, which runs the hooks from `from` on with `call(hook, subject, ctx)`.
 */
export function pointChain(
  run: Run,
  point: HookPoint,
  call: (hook: AnyHook, subject: unknown, ctx: PointHost['ctx']) => unknown,
  options: { toolCallId?: string; check?: (subject: unknown, hook: string) => ChainOutcome | null } = {},
) {
  const hooks = hooksOf(run);
  const host = hostOf(run, point, options.toolCallId);
  const chain = (from: number, subject: unknown) =>
    runChain(
      hooks,
      point,
      from,
      subject,
      host,
      (hook, current) => call(hook, current, host.ctx),
      options.check,
    );
  return { host, chain };
}

/** A hook's ask as the interaction to store: a review of the subject, or its question or form. */
export function reviewDraft(
  run: Run,
  ask: HookAsk,
  hook: AnyHook,
  index: number,
  point: HookPoint,
  subject: unknown,
  schemaHash?: string,
): AskDraft | { failed: HookFailure } {
  const options = ask === true ? {} : ask;
  const expiresAt =
    options.expiresInMs === undefined
      ? null
      : new Date(now(run).getTime() + options.expiresInMs).toISOString();
  const review = { hook: hook.name, point, index, subject: JSON.stringify(subject) ?? 'null' };
  const common = {
    ...(schemaHash !== undefined ? { schemaHash } : {}),
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    ...(options.assignees !== undefined ? { assignees: [...options.assignees] } : {}),
  };
  if (options.questions === undefined && options.input === undefined) {
    return { kind: 'review', expiresAt, ...common, review };
  }
  // A question or a form is made as a tool's `ctx.ask` is (same checks), its answer kept for `resume`.
  const asker = {
    name: `Hook ${hook.name}`,
    resume: hook.resume,
    schemaHash: schemaHash ?? '',
  } as AnyFunctionTool;
  const request =
    options.questions !== undefined ? { questions: options.questions } : { input: options.input! };
  const made = askDraft(
    run,
    asker,
    '{}',
    { kind: 'turnkit.ask', request, state: null } as never,
    () => expiresAt,
  );
  if ('result' in made)
    return {
      failed: { hook: hook.name, point, problem: `it asked something it cannot ask (${made.result})` },
    };
  const { schemaHash: _none, ...draft } = made.draft;
  return { ...draft, ...common, review };
}

/** The text the model reads for a value a hook gave as a tool's result. */
export function resultText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** A point's chain resumed after a review: the asking hook's `resume` first when it asked a question. */
export async function resumed(
  run: Run,
  resume: HookResume,
  host: PointHost,
  run_: (from: number, subject: unknown) => ChainOutcome | Promise<ChainOutcome>,
): Promise<ChainOutcome> {
  const subject = JSON.parse(resume.subject) as unknown;
  if (resume.deny !== undefined) return { deny: resume.deny, hook: resume.hook };
  if (resume.answer === undefined) return run_(resume.from, subject);
  const hooks = hooksOf(run);
  const hook =
    hooks[resume.from]?.name === resume.hook
      ? hooks[resume.from]
      : hooks.find((item) => item.name === resume.hook);
  if (!hook) return run_(resume.from + 1, subject);
  const stored = JSON.parse(resume.answer) as { kind: string; answers?: unknown; value?: unknown };
  const answer = stored.kind === 'question' ? stored.answers : stored.value;
  const decided = await resumeHook(hook, resume.point, answer, subject, host.ctx);
  if ('failed' in decided) return decided;
  if (decided.decision === null) return run_(resume.from + 1, subject);
  const applied = applyDecision(hook, resume.from, resume.point, decided.decision, subject, host);
  return 'next' in applied ? run_(resume.from + 1, applied.next) : applied;
}

/** Parses a result text back into the value hooks see (text that is not JSON stays text). */
export function resultValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The HOOK_ERROR a failure ends the turn with. */
export function hookError(failure: HookFailure): { code: string; message: string } {
  return { code: 'HOOK_ERROR', message: hookErrorMessage(failure) };
}
