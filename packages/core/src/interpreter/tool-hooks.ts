/**
 * The tool points (DESIGN §26): `beforeTool` — the input the tool runs with (a rewrite checked
 * against its schema), its result, a denial, or a review of the call — and `afterTool` — the result
 * the model reads, a denial, a review, or a failure that holds the result so a retry runs only this
 * point again.
 */

import { type ChainOutcome, deniedResult, type HookFailure } from '../hooks/index.js';
import type { HookResume, StoredInteraction } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import type { AskDraft } from './ask.js';
import {
  hasHooks,
  pointChain,
  resultText,
  resultValue,
  resumed,
  reviewDraft,
  settle,
} from './hook-points.js';
import { now, type Run } from './run.js';
import { zodIssues } from './tool-input.js';

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
