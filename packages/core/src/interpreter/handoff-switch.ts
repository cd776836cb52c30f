/**
 * The switch of a handoff (DESIGN §27), made where a step ends: the step's first transfer call ran,
 * so the run is played from here on by the agent it names — on the same transcript, recorded in
 * the snapshot as the active agent. Every event that can end a step goes through {@link sendSettling}.
 */
import { handoffMade, playingAgent, transferOf } from '../handoffs/index.js';
import type { LoopEvent } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { AnyFunctionTool } from '../tools/index.js';
import type { ChatMessage, ToolCall } from '../types.js';
import { emit } from './events.js';
import { finishTool, startTool } from './execute.js';
import { activeHandoff, type Run, rootOf, send } from './run.js';

/** Sends an event that may end the current step; a step that ends having handed off switches the agent. */
export function sendSettling(run: Run, event: LoopEvent): void {
  const step = run.state.context.step;
  send(run, event);
  // Sub-agents play their own agent as given: they hand nothing off.
  if (!step || run.state.context.step || run.parent) return;
  const { messages } = run.state.context;
  // The step's results are the transcript's last tool messages (a held user message may follow them).
  const made = handoffMade(run.agent, step, (toolCallId) => {
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index]!;
      if (message.role === 'assistant') return undefined;
      if (message.role === 'tool' && message.tool_call_id === toolCallId) return message.content;
    }
    return undefined;
  });
  if (!made) return;
  const from = run.agent.name;
  const to = made.agent.name;
  emit(run, { type: 'handoff', from, to });
  run.handoff = activeHandoff(rootOf(run), from, made.options.inputFilter);
  run.agent = playingAgent(made.agent);
  run.agentPath = [to];
  run.idPrefix = to;
}

/**
 * What the playing agent's model is sent of the transcript: all of it, or what the `inputFilter`
 * of the handoff that made it play keeps (given a copy of the list; the transcript stays whole).
 * Throws what the filter throws, or a TypeError when it returns no list.
 */
export function modelMessages(run: Run): ChatMessage[] {
  const { messages } = run.state.context;
  const filter = run.handoff?.inputFilter;
  if (!filter) return messages;
  const kept = filter([...messages]);
  if (!Array.isArray(kept))
    throw new TypeError(`the inputFilter returned ${typeof kept}, not a list of messages`);
  return kept;
}

/** The turn's error when a handoff's `inputFilter` fails (the error itself went to `onError`). */
export function inputFilterError(run: Run): { code: string; message: string } {
  return {
    code: 'INPUT_FILTER_ERROR',
    message: `The inputFilter of the handoff from ${run.handoff?.from} to ${run.agent.name} failed (the error went to onError); the model was not called. Fix it, then retry the turn.`,
  };
}

/** The `tool_error` result of a tool that carries no code where it needs some: the loop cannot run it. */
export function notRun(tool: { name: string }): { result: string } {
  const message = `${tool.name} was not made by defineTool, askUserQuestion or handoff, so the loop cannot run it.`;
  return { result: toolErrorResult('tool_error', message) };
}

/**
 * The call of a function tool that carries no code (DESIGN §18: `defineTool` and `handoff` put
 * it on their tools). A plain agent's transfer tool's call runs here — counted and shown as any
 * call; its result marks the switch made when the step ends — and any other such tool is not run.
 */
export function codelessCall(run: Run, tool: AnyFunctionTool, call: ToolCall): { result: string } {
  const handoff = transferOf(run.agent, tool.name);
  if (!handoff) return notRun(tool);
  startTool(run, call.id, tool.name);
  const result = JSON.stringify({ ok: true, transferred_to: handoff.agent.name });
  finishTool(run, call.id, tool.name, result);
  return { result };
}
