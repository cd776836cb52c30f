/**
 * Where the loop meets the hooks (DESIGN §26): the four points as the step and the model call see
 * them. Each runs its chain (hooks/chain.ts) and turns the outcome into what the loop acts on — the
 * input or result to go on with, a tool's result, a review to wait for, a denial, or a failure —
 * and picks a point up again after a review was decided: from the hook after the one that asked
 * (or, for a question, with that hook's `resume`), never from the start.
 */

import {
  type AnyHook,
  applyDecision,
  type ChainOutcome,
  canonicalJson,
  checkHooks,
  deniedResult,
  HOOK_POINTS,
  type HookAsk,
  type HookFailure,
  type HookPoint,
  hookErrorMessage,
  type PointHost,
  rememberKey,
  resumeHook,
  runChain,
} from '../hooks/index.js';
import type { HookResume, StoredInteraction } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { AssistantMessage, ModelRequest, ToolCall } from '../types.js';
import { type AskDraft, askDraft } from './ask.js';
import { emit } from './events.js';
import { now, type Run } from './run.js';
import { zodIssues } from './tool-input.js';

const NO_HOOKS: readonly AnyHook[] = Object.freeze([]);

/** `then` for a value that is a promise only when a hook was async: no promise on the common path. */
function settle<T, R>(value: T | Promise<T>, then: (value: T) => R): R | Promise<R> {
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

/** The key a `remember: 'run'` approval keeps for an input: `rememberBy`'s, else the input itself. */
export function inputKey(rememberBy: ((input: unknown) => string) | undefined, input: unknown): string {
  if (rememberBy) {
    try {
      return String(rememberBy(input));
    } catch {
      // A key function that fails remembers nothing wider than the input itself.
    }
  }
  return canonicalJson(input);
}

/** Whether an approval remembered for the run covers `owner`'s ask on this tool and input. */
export function isRemembered(run: Run, owner: string, toolName: string, key: string): boolean {
  return run.state.context.remembered?.includes(rememberKey(owner, toolName, key)) ?? false;
}

function hostOf(run: Run, point: HookPoint, toolCallId?: string): PointHost {
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
            return isRemembered(run, hook.name, name, inputKey(hook.rememberBy, input));
          },
        }
      : {}),
  };
}

/**
 * One point's chain for this run: its host (the hooks' `ctx`, their events) and `chain(from,
 * subject)`, which runs the hooks from `from` on with `call(hook, subject, ctx)`.
 */
function pointChain(
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
function reviewDraft(
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
function resultText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** A point's chain resumed after a review: the asking hook's `resume` first when it asked a question. */
async function resumed(
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

/** What a tool point comes to: go on (with this input, or this result text), a result, a review, a failure. */
export type ToolPointOutcome =
  | { input: unknown; raw: string }
  | { result: string }
  | { draft: AskDraft }
  | { failed: HookFailure };

/**
 * `beforeTool`: the input the tool runs with (rewrites checked against its schema: a refused one is
 * `invalid_arguments`, not run), its result, a denial (`denied`), or a review of the call.
 */
export function beforeToolPoint(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  resume?: HookResume,
): ToolPointOutcome | Promise<ToolPointOutcome> {
  const raw = call.function.arguments === '' ? '{}' : call.function.arguments;
  if (!resume && !hasHooks(run, 'beforeTool')) return { input, raw };
  let checked: unknown = input;
  const check = (subject: unknown): ChainOutcome | null => {
    const parsed = tool.input.safeParse((subject as { input: unknown }).input);
    if (parsed.success) {
      checked = parsed.data;
      return null;
    }
    return { result: toolErrorResult('invalid_arguments', zodIssues(parsed.error)), hook: '' };
  };
  const { host, chain } = pointChain(
    run,
    'beforeTool',
    (hook, current, ctx) => hook.beforeTool!(current as never, ctx),
    {
      toolCallId: call.id,
      check,
    },
  );
  const subject = { id: call.id, name: tool.name, input };
  const chained = resume
    ? resumed(
        run,
        resume,
        host,
        (from, current) => (from > 0 ? check(current) : null) ?? chain(from, current),
      )
    : chain(0, subject);
  return settle(chained, (outcome) => beforeToolOutcome(run, tool, outcome, raw, () => checked));
}

/** What a beforeTool chain came to, for the step. */
function beforeToolOutcome(
  run: Run,
  tool: AnyFunctionTool,
  outcome: ChainOutcome,
  raw: string,
  checked: () => unknown,
): ToolPointOutcome {
  if ('go' in outcome) {
    const given = (outcome.go as { input: unknown }).input;
    return { input: checked(), raw: JSON.stringify(given) ?? raw };
  }
  if ('result' in outcome) return { result: resultText(outcome.result) };
  if ('deny' in outcome) return { result: deniedResult(outcome.hook, outcome.deny) };
  if ('failed' in outcome) return outcome;
  const draft = reviewDraft(
    run,
    outcome.ask,
    outcome.hook,
    outcome.index,
    'beforeTool',
    outcome.subject,
    tool.schemaHash,
  );
  return 'failed' in draft ? draft : { draft };
}

/** What `afterTool` comes to: the result the model reads, a review, or a failure (with the result held). */
export type AfterToolOutcome =
  | { result: string }
  | { draft: AskDraft }
  | { failed: HookFailure; resume: StoredInteraction; askResponse: string };

/** Parses a result text back into the value hooks see (text that is not JSON stays text). */
function resultValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `afterTool`: the result, rewritten or not; a denial (`denied`); a review of the result. */
export function afterToolPoint(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  result: string,
  resume?: HookResume,
): AfterToolOutcome | Promise<AfterToolOutcome> {
  if (!resume && !hasHooks(run, 'afterTool')) return { result };
  const seen = { id: call.id, name: tool.name, input };
  const original = resultValue(result);
  const { host, chain } = pointChain(
    run,
    'afterTool',
    (hook, current, ctx) => hook.afterTool!(seen, current, ctx),
    {
      toolCallId: call.id,
    },
  );
  return settle(
    resume ? resumed(run, resume, host, chain) : chain(0, original),
    (outcome): AfterToolOutcome => {
      if ('go' in outcome) return { result: outcome.go === original ? result : resultText(outcome.go) };
      if ('deny' in outcome) return { result: deniedResult(outcome.hook, outcome.deny) };
      if ('failed' in outcome)
        return { failed: outcome.failed, ...heldFor(run, tool, call, original, outcome.failed) };
      if ('result' in outcome) return { result: resultText(outcome.result) };
      const draft = reviewDraft(
        run,
        outcome.ask,
        outcome.hook,
        outcome.index,
        'afterTool',
        outcome.subject,
        tool.schemaHash,
      );
      return 'failed' in draft
        ? { failed: draft.failed, ...heldFor(run, tool, call, original, draft.failed) }
        : { draft };
    },
  );
}

/**
 * The tool ran but its `afterTool` point failed: the result is held with the call (an interaction
 * that is never pending) and a retry runs that point again from its first hook, not the tool.
 */
function heldFor(run: Run, tool: AnyFunctionTool, call: ToolCall, value: unknown, failure: HookFailure) {
  const subject = JSON.stringify(value) ?? 'null';
  const again: HookResume = { point: 'afterTool', hook: failure.hook, from: 0, subject };
  const resume: StoredInteraction = {
    id: `${run.idPrefix}:hook:${call.id}`,
    kind: 'review',
    toolCallId: call.id,
    toolName: tool.name,
    agentPath: run.agentPath,
    createdAt: now(run).toISOString(),
    expiresAt: null,
    review: { hook: failure.hook, point: 'afterTool', index: 0, subject },
  };
  return { resume, askResponse: JSON.stringify(again) };
}

/** What a model point comes to. */
export type ModelPointOutcome<T> =
  | { go: T }
  | { draft: AskDraft }
  | { deny: { hook: string; reason: string; point: HookPoint } }
  | { failed: HookFailure };

/** `beforeModel`: the request to send (rewritten for this call only), a denial, a review of it. */
export function beforeModelPoint(
  run: Run,
  request: ModelRequest,
  resume?: HookResume,
): ModelPointOutcome<ModelRequest> | Promise<ModelPointOutcome<ModelRequest>> {
  if (!resume && !hasHooks(run, 'beforeModel')) return { go: request };
  const { host, chain } = pointChain(run, 'beforeModel', (hook, current, ctx) =>
    hook.beforeModel!(current as never, ctx),
  );
  const subject = { messages: request.messages, ...(request.settings ? { settings: request.settings } : {}) };
  return settle(resume ? resumed(run, resume, host, chain) : chain(0, subject), (outcome) => {
    if (!('go' in outcome)) return modelStop<ModelRequest>(run, outcome, 'beforeModel');
    if (outcome.go === subject) return { go: request };
    const { messages, settings } = outcome.go as {
      messages: ModelRequest['messages'];
      settings?: ModelRequest['settings'];
    };
    const { settings: _old, ...rest } = request;
    return { go: { ...rest, messages, ...(settings ? { settings } : {}) } };
  });
}

/** A model point's chain that stopped: its denial, failure or review. */
function modelStop<T>(run: Run, outcome: ChainOutcome, point: HookPoint): ModelPointOutcome<T> {
  if ('deny' in outcome) return { deny: { hook: outcome.hook, reason: outcome.deny, point } };
  if ('failed' in outcome) return outcome;
  if ('ask' in outcome) {
    const draft = reviewDraft(run, outcome.ask, outcome.hook, outcome.index, point, outcome.subject);
    return 'failed' in draft ? draft : { draft };
  }
  return {
    failed: {
      hook: (outcome as { hook: string }).hook,
      point,
      problem: 'it returned a decision this point does not take',
    },
  };
}

/** A model message as hooks see it: its text, and its tool calls with their inputs parsed. */
export function responseSubject(message: AssistantMessage): {
  text: string | null;
  toolCalls: { id: string; name: string; input: unknown }[];
} {
  return {
    text: message.content,
    toolCalls: (message.tool_calls ?? []).map(
      (call) => new ResponseCall(call.id, call.function.name, call.function.arguments),
    ),
  };
}

/**
 * A tool call of a model response as hooks see it, its input parsed on first read: most hooks never
 * read it, and a call's arguments may be long (a question's, a document's). A class, so making one
 * costs what a plain object does; `toJSON` keeps the input when a review stores the response.
 */
class ResponseCall {
  #parsed: { value: unknown } | undefined;
  constructor(
    readonly id: string,
    readonly name: string,
    readonly args: string,
  ) {}
  get input(): unknown {
    this.#parsed ??= { value: resultValue(this.args) };
    return this.#parsed.value;
  }
  toJSON(): { id: string; name: string; input: unknown } {
    return { id: this.id, name: this.name, input: this.input };
  }
}

/** The assistant message a (rewritten) response subject stands for. */
export function messageOf(subject: unknown): AssistantMessage {
  const { text, toolCalls } = subject as {
    text: string | null;
    toolCalls: { id: string; name: string; input: unknown }[];
  };
  if (toolCalls.length === 0) return { role: 'assistant', content: text };
  return {
    role: 'assistant',
    content: text,
    tool_calls: toolCalls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: {
        name: call.name,
        // A call no hook replaced keeps the model's arguments as they were written.
        arguments:
          call instanceof ResponseCall
            ? call.args
            : typeof call.input === 'string'
              ? call.input
              : (JSON.stringify(call.input) ?? '{}'),
      },
    })),
  };
}

/** `afterModel`: the response to keep (rewritten or not), a denial, a review of it. */
export function afterModelPoint(
  run: Run,
  message: AssistantMessage,
  resume?: HookResume,
): ModelPointOutcome<AssistantMessage> | Promise<ModelPointOutcome<AssistantMessage>> {
  if (!resume && !hasHooks(run, 'afterModel')) return { go: message };
  const { host, chain } = pointChain(run, 'afterModel', (hook, current, ctx) =>
    hook.afterModel!(current as never, ctx),
  );
  const original = responseSubject(message);
  return settle(resume ? resumed(run, resume, host, chain) : chain(0, original), (outcome) =>
    'go' in outcome
      ? { go: outcome.go === original ? message : messageOf(outcome.go) }
      : modelStop<AssistantMessage>(run, outcome, 'afterModel'),
  );
}

/** A model point's review as the run's pause (it waits where a budget would: DESIGN §20, §26). */
export function modelReview(run: Run, draft: AskDraft): StoredInteraction {
  return {
    ...draft,
    id: `${run.idPrefix}:${run.state.context.interactionCount + 1}`,
    toolCallId: '',
    toolName: '',
    agentPath: run.agentPath,
    createdAt: now(run).toISOString(),
  } as StoredInteraction;
}

/** What stands in the transcript for a response an afterModel hook denied: it is never kept. */
export const WITHHELD: AssistantMessage = Object.freeze({
  role: 'assistant',
  content: '(response withheld)',
}) as AssistantMessage;

/** What the model reads after its response was denied. */
export function withheldFeedback(hook: string, reason: string): string {
  return `Your previous response was not delivered: hook ${hook} denied it (${reason}). Write a new response that takes this into account.`;
}

/** The HOOK_ERROR a failure ends the turn with. */
export function hookError(failure: HookFailure): { code: string; message: string } {
  return { code: 'HOOK_ERROR', message: hookErrorMessage(failure) };
}
