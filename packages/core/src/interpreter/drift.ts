/**
 * Tool drift (DESIGN §21): a call recorded under one definition of its tool (a pending approval or
 * ask, or a call in flight when its worker stopped) may resume under another, after the app
 * shipped new code. Each such call carries the hash of its tool's input schema as recorded; before
 * it runs, the tool it would run with is compared. A tool that is gone, that can no longer continue
 * the call, or whose changed schema refuses the call's input, is not run: the call gets a
 * `tool_changed` result and a `tool_changed` event. A changed schema that the input still satisfies
 * runs as usual.
 */
import type { StepCall } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { Tool } from '../tools/index.js';
import type { ToolCall } from '../types.js';
import { emit } from './events.js';
import type { Run } from './run.js';
import { parseToolInput } from './tool-input.js';

/** The schema hash a call was recorded under, when it was: its interaction's, or its start marker's. */
function recordedHash(stepCall: StepCall): string | undefined {
  const interaction = stepCall.interaction;
  if (interaction && (interaction.kind !== 'question' || interaction.ask)) return interaction.schemaHash;
  return stepCall.schemaHash;
}

/** The input the call would run with: the human's (edited or approved) input, else the model's arguments. */
function inputOf(stepCall: StepCall, call: ToolCall): string {
  return stepCall.status === 'approved' && stepCall.approvedInput !== undefined
    ? stepCall.approvedInput
    : call.function.arguments;
}

function changed(
  run: Run,
  stepCall: StepCall,
  reason: 'removed' | 'schema_changed',
  message: string,
): { result: string } {
  emit(run, { type: 'tool_changed', toolCallId: stepCall.toolCallId, toolName: stepCall.toolName, reason });
  return { result: toolErrorResult('tool_changed', message) };
}

/**
 * The `tool_changed` result of a recorded call that must not run with `tool` (the agent's tool of
 * that name now, if any), or undefined when it may run. Calls with no recorded hash (a fresh call
 * of this step, a question) are not drift's business.
 */
export function driftResult(
  run: Run,
  stepCall: StepCall,
  call: ToolCall,
  tool: Tool | undefined,
): { result: string } | undefined {
  const recorded = recordedHash(stepCall);
  if (recorded === undefined) return undefined;
  const name = stepCall.toolName;
  if (tool?.kind !== 'function') {
    const names = [...run.agent.toolIndex.keys()].join(', ') || 'none';
    return changed(
      run,
      stepCall,
      'removed',
      `Tool ${name} was removed while this call waited (the application changed), so the call was not run. Go on without it, or use the tools available now: ${names}.`,
    );
  }
  // A hook's ask (DESIGN §26) goes on in the hook, not the tool's `resume`.
  const asked =
    stepCall.status === 'resuming' && stepCall.askResponse !== undefined && !stepCall.interaction?.review;
  if (asked && typeof tool.resume !== 'function') {
    return changed(
      run,
      stepCall,
      'removed',
      `Tool ${name} changed while this call waited for the user (it can no longer continue from an answer), so the call was not finished. Call it again if you still need it.`,
    );
  }
  if (tool.schemaHash === recorded) return undefined;
  const parsed = parseToolInput(tool, inputOf(stepCall, call));
  if (parsed.ok) return undefined;
  const issues = JSON.parse(parsed.result).message as string;
  return changed(
    run,
    stepCall,
    'schema_changed',
    `The input schema of tool ${name} changed while this call waited (the application changed), and the call's input no longer fits it, so it was not run. Call ${name} again with input for its current schema if you still need it.\n${issues}`,
  );
}
