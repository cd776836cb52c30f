/**
 * A run's transcript as the `UIMessage[]` that `useChat` holds: what `GET /chat/:id` returns, so a
 * page reloaded while a question waits shows the conversation and the question again, and its
 * answer re-posts as if the page had never gone away. The last assistant message carries
 * `metadata.turnkit` (status and pending interactions), which `turnkitSendAutomaticallyWhen` reads.
 *
 * Message ids are `<runId>-<index of the message's first transcript entry>`: the same on every read.
 */
import type { AnyAgent, ChatMessage, TurnResult } from '@turnkit/core';
import type { TurnkitMessageMetadata } from './client.js';
import {
  type AssistantView,
  assistantView,
  type ToolPartView,
  turnkitMetadata,
  type UIToolState,
} from './view.js';

/** A tool part of a UI message, as AI SDK 6 and 7 shape it (`type` is `tool-<toolName>`). */
export interface UIToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state: UIToolState;
  input: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** A part of a UI message TurnKit produces. */
export type UIPart = { type: 'step-start' } | { type: 'text'; text: string; state?: 'done' } | UIToolPart;

/** A UI message as `useChat` holds it (the `UIMessage` shape of `ai@6` and `ai@7`). */
export interface UIMessage {
  id: string;
  role: 'user' | 'assistant';
  metadata?: TurnkitMessageMetadata;
  parts: UIPart[];
}

/** A server-side tool part as the part a client holds. */
export function toolPart(view: ToolPartView): UIToolPart {
  const part: UIToolPart = {
    type: `tool-${view.toolName}`,
    toolCallId: view.toolCallId,
    state: view.state,
    input: view.input,
  };
  if (view.state === 'output-available') part.output = view.output;
  if (view.state === 'output-error') part.errorText = view.errorText ?? 'The tool failed.';
  if (view.state === 'approval-requested') part.approval = { id: view.approvalId ?? view.toolCallId };
  if (view.state === 'output-denied') {
    part.approval = {
      id: view.approvalId ?? view.toolCallId,
      approved: false,
      ...(view.reason !== undefined ? { reason: view.reason } : {}),
    };
  }
  return part;
}

function assistantParts(view: AssistantView): UIPart[] {
  const parts: UIPart[] = [];
  for (const step of view.steps) {
    parts.push({ type: 'step-start' });
    if (step.text !== '') parts.push({ type: 'text', text: step.text, state: 'done' });
    for (const tool of step.tools) parts.push(toolPart(tool));
  }
  for (const tool of view.synthetic) parts.push(toolPart(tool));
  return parts;
}

/** Where each UI message starts: every user message, and the first entry after each user message. */
function boundaries(messages: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user') starts.push(index);
    else if (index === 0 || messages[index - 1]!.role === 'user') starts.push(index);
  });
  return starts;
}

/**
 * The run as UI messages. `agent` tells which tools are question tools (default: those named
 * `AskUserQuestion`); `withSnapshot` puts the snapshot in the last assistant message's metadata.
 */
export function toUIMessages(
  result: Pick<TurnResult<unknown>, 'runId' | 'status' | 'messages' | 'pending'> & {
    snapshot?: string;
    activeAgent?: string;
  },
  options: { agent?: AnyAgent; withSnapshot?: boolean } = {},
): UIMessage[] {
  const { messages } = result;
  const starts = boundaries(messages);
  const out: UIMessage[] = starts.map((start, position) => {
    const id = `${result.runId}-${start}`;
    const first = messages[start]!;
    if (first.role === 'user') return { id, role: 'user', parts: [{ type: 'text', text: first.content }] };
    const end = starts[position + 1] ?? messages.length;
    const isLast = end === messages.length;
    const view = assistantView(messages.slice(0, end), start, isLast ? result.pending : [], options.agent);
    return { id, role: 'assistant', parts: assistantParts(view) };
  });
  const last = out.at(-1);
  if (last?.role === 'assistant') {
    last.metadata = { turnkit: turnkitMetadata(result, options.withSnapshot === true) };
  }
  return out;
}
