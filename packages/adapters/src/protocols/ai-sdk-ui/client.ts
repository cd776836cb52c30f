/**
 * The front-end half of the AI SDK adapter (`@turnkit/adapters/ai-sdk/client`): what a `useChat`
 * app imports in the browser. It imports nothing at run time — no Node built-in, not even `ai` —
 * so any bundler takes it as is; its types are core's (a type import, erased from the build).
 *
 * Every assistant message TurnKit streams carries `metadata.turnkit`: the run, its status and the
 * interactions it waits for, each with the `toolCallId` of the part that shows it. That list is
 * what {@link turnkitSendAutomaticallyWhen} reads: AI SDK's stock predicates only look at the tool
 * parts of the last step, and a tool that asked (`ctx.ask`) or a sub-agent that bubbled keeps its
 * own part open while its question waits in a separate part, so they would never re-post.
 */

import type { InteractionKind, TurnStatus } from '@turnkit/core';

/** What kind of answer a pending interaction takes (core's `InteractionKind`). */
export type TurnkitInteractionKind = InteractionKind;

/** One interaction the run waits for, as the assistant message's metadata lists it. */
export interface TurnkitPendingPart {
  /** The interaction id (what core's `respond` takes; an approval's `approvalId`). */
  id: string;
  kind: TurnkitInteractionKind;
  /**
   * The `toolCallId` of the UI part that shows it: the model's tool call for a question asked with
   * the question tool and for an approval; the interaction id itself for a synthetic part (a
   * tool's `ctx.ask` question or form, anything a sub-agent asks).
   */
  toolCallId: string;
  /** Agent names from the top agent down to the one that asked. */
  agentPath: string[];
  /** ISO time after which an answer is no longer used, or null. */
  expiresAt: string | null;
}

/** `metadata.turnkit` of an assistant message streamed by `aiSdkHandler`. */
export interface TurnkitMetadata {
  runId: string;
  /** The run's status after the turn: `needs_input`, `completed`, `failed`… */
  status: TurnStatus;
  /** What the run waits for (empty unless `needs_input`). */
  pending: TurnkitPendingPart[];
  /** Client-held mode only: the signed (or encrypted) snapshot the next request sends back. */
  snapshot?: string;
  /**
   * The agent playing the run after the turn (DESIGN §27): the root's name, or the agent a handoff
   * moved the run to. During the stream, a `message-metadata` chunk carries it at each handoff.
   */
  activeAgent?: string;
}

/** The metadata TurnKit puts on assistant messages: `{ turnkit: TurnkitMetadata }`. */
export interface TurnkitMessageMetadata {
  turnkit: TurnkitMetadata;
}

/** The fields of a UI message part this module reads (any `UIMessage` part of `ai@6` or `ai@7` fits). */
export interface UIPartLike {
  type: string;
  toolCallId?: string;
  state?: string;
  preliminary?: boolean;
}

/** The fields of a UI message this module reads (any `UIMessage` of `ai@6` or `ai@7` fits). */
export interface UIMessageLike {
  role: string;
  metadata?: unknown;
  parts: readonly UIPartLike[];
}

/** Part states that answer an interaction: an output (or an error that cancels it) or an approval response. */
const ANSWERED = new Set(['output-available', 'output-error', 'output-denied', 'approval-responded']);

/** `message.metadata.turnkit` when the message carries it, else null. */
export function turnkitMetadataOf(message: UIMessageLike | undefined): TurnkitMetadata | null {
  const metadata = message?.metadata;
  if (typeof metadata !== 'object' || metadata === null) return null;
  const turnkit = (metadata as { turnkit?: unknown }).turnkit;
  if (typeof turnkit !== 'object' || turnkit === null) return null;
  return Array.isArray((turnkit as TurnkitMetadata).pending) ? (turnkit as TurnkitMetadata) : null;
}

/**
 * `sendAutomaticallyWhen` for `useChat` / `AbstractChat` against a TurnKit back end: true once every
 * part the last assistant message lists as a pending interaction has an output
 * (`addToolOutput`, also `state: 'output-error'`, which cancels it) or an approval response
 * (`addToolApprovalResponse`). Synchronous, as `ai@6.0.0` needs.
 *
 * @example
 * const chat = useChat({
 *   transport: new DefaultChatTransport({ api: '/api/chat' }),
 *   sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
 * });
 */
export function turnkitSendAutomaticallyWhen({ messages }: { messages: readonly UIMessageLike[] }): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return false;
  const pending = turnkitMetadataOf(last)?.pending ?? [];
  if (pending.length === 0) return false;
  const states = new Map<string, UIPartLike>();
  for (const part of last.parts) if (typeof part.toolCallId === 'string') states.set(part.toolCallId, part);
  return pending.every((entry) => {
    const part = states.get(entry?.toolCallId);
    if (!part || !ANSWERED.has(part.state ?? '')) return false;
    return !(part.state === 'output-available' && part.preliminary === true);
  });
}
