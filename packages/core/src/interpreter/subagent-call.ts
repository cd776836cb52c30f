/**
 * A call of an agent tool (a sub-agent) or of the built-in `answer_subagent`: the parent's hooks
 * guard the agent tool's call like any other (DESIGN §26) — beforeTool before the child starts,
 * afterTool on what it came to — and a paused child goes on where it stopped. The player agent
 * tools carry (agent-tool.ts) brings this file, so a program without agent tools bundles none of it.
 */
import type { CallResult, StepCall } from '../machine/index.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import type { AskDraft } from './ask.js';
import type { DriveToRest } from './child.js';
import { finishTool, startTool } from './execute.js';
import { afterTool, beforeTool, hooksFor } from './hook-runtime.js';
import type { Run } from './run.js';
import type { SubagentPlayer } from './subagents.js';
import type { afterToolPoint, ToolPointOutcome } from './tool-hooks.js';
import { parseToolInput } from './tool-input.js';

/** What an agent tool's call comes to: a call's outcome, or what its hooks came to. */
type SubagentOutcome =
  | CallResult
  | { draft: AskDraft }
  | Exclude<ToolPointOutcome, { input: unknown }>
  | Awaited<ReturnType<typeof afterToolPoint>>
  | undefined;

/**
 * Plays an agent tool's child (a new one, or a paused one going on); a result the child came to goes
 * through the parent's afterTool hooks (not one that parks the child for `answer_subagent`).
 */
async function playSubagent(
  run: Run,
  tool: AnyFunctionTool,
  stepCall: StepCall,
  call: ToolCall,
  input: unknown,
  player: SubagentPlayer,
  drive: DriveToRest,
): Promise<SubagentOutcome> {
  const resuming = stepCall.status === 'resuming';
  startTool(run, call.id, tool.name, resuming);
  const outcome = await player.call(run, tool, call, resuming ? stepCall.child : undefined, drive);
  if (!outcome || !('result' in outcome)) return outcome;
  finishTool(run, call.id, tool.name, outcome.result);
  if (outcome.park) return outcome;
  const given = input ?? (parseToolInput(tool, call.function.arguments) as { input?: unknown }).input;
  return afterTool(run, tool, call, given, outcome.result);
}

/** Runs a call of an agent tool or of `answer_subagent` (the player's `step`, called by the step). */
export async function playAgentToolCall(
  run: Run,
  tool: AnyFunctionTool,
  stepCall: StepCall,
  call: ToolCall,
  drive: DriveToRest,
): Promise<SubagentOutcome> {
  const player = tool.subagents as SubagentPlayer;
  if (tool.builtin === 'answer_subagent') return player.answer(run, tool, call, drive);
  // The parent's hooks guard its agent tool's call like any other (DESIGN §26); a paused child goes on.
  const play = (input: unknown, raw: string) =>
    playSubagent(
      run,
      tool,
      stepCall,
      { ...call, function: { ...call.function, arguments: raw } },
      input,
      player,
      drive,
    );
  if (stepCall.interaction?.review) return hooksFor(run).resumeReviewed(run, tool, stepCall, call, play);
  if (stepCall.status === 'resuming')
    return playSubagent(run, tool, stepCall, call, undefined, player, drive);
  const parsed = parseToolInput(tool, call.function.arguments);
  if (!parsed.ok) return { result: parsed.result };
  return beforeTool(run, tool, call, parsed.input, play);
}
