/**
 * A tool call the hooks stopped, picked up again (DESIGN §26): after a `beforeTool` review was
 * approved (the call is `approved`, its input the approved or edited one), after a hook's question
 * was answered, or after an `afterTool` review was decided or its hook failed (the call is
 * `resuming` with where its point goes on). The hook that asked, and those before it, never run
 * again at that point; the ones after it run once; the tool runs once, after them.
 */
import type { HookResume, StepCall } from '../machine/index.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import type { Run } from './run.js';
import { afterToolPoint, beforeToolPoint, type ToolPointOutcome } from './tool-hooks.js';
import { parseToolInput } from './tool-input.js';

/** How a call goes on once its beforeTool hooks let it: the tool's own approval, then the tool. */
export type GoOn<T> = (input: unknown, raw: string, options?: { editedInput?: unknown }) => Promise<T>;

/** The call goes on when the beforeTool point let it; else what the point came to. */
export async function afterBefore<T>(
  before: ToolPointOutcome,
  goOn: GoOn<T>,
): Promise<T | Exclude<ToolPointOutcome, { input: unknown }>> {
  return 'input' in before ? goOn(before.input, before.raw) : before;
}

/** Picks up a call whose hook's review was decided, or whose afterTool point failed. */
export async function resumeReviewed<T>(
  run: Run,
  tool: AnyFunctionTool,
  stepCall: StepCall,
  call: ToolCall,
  goOn: GoOn<T>,
) {
  const review = stepCall.interaction!.review!;
  const raw = stepCall.approvedInput ?? call.function.arguments;
  const parsed = parseToolInput(tool, raw);
  if (!parsed.ok) return { result: parsed.result };
  if (stepCall.status === 'approved') {
    // A beforeTool review approved (maybe with an edited input): the hooks after it, then the call.
    const subject = JSON.stringify({ id: call.id, name: tool.name, input: JSON.parse(raw) as unknown });
    const resume: HookResume = { point: 'beforeTool', hook: review.hook, from: review.index + 1, subject };
    const edited = stepCall.edited ? { editedInput: JSON.parse(raw) as unknown } : {};
    return afterBefore(await beforeToolPoint(run, tool, call, parsed.input, resume), (input, given) =>
      goOn(input, given, edited),
    );
  }
  const resume = JSON.parse(stepCall.askResponse ?? '{}') as HookResume;
  if (resume.point === 'beforeTool') {
    const input = (JSON.parse(resume.subject) as { input: unknown }).input;
    return afterBefore(await beforeToolPoint(run, tool, call, input, resume), goOn);
  }
  return afterToolPoint(run, tool, call, parsed.input, '', resume);
}
