/**
 * What the AG-UI handler sends: the AG-UI 1.0 events, messages and interrupts it emits, typed here
 * from the protocol so the package needs no runtime import of `@ag-ui/*`. Only the fields TurnKit
 * fills are listed; the AG-UI client drops (with a warning) any field its schemas do not know, so
 * TurnKit's own data travels in `metadata` and `CUSTOM` events, never in extra fields.
 */

/** A function call of an assistant message. */
export interface AgUiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A message of `MESSAGES_SNAPSHOT`: the run's transcript in AG-UI's shape. */
export type AgUiMessage =
  | { id: string; role: 'user'; content: string }
  | { id: string; role: 'assistant'; content?: string; toolCalls?: AgUiToolCall[] }
  | { id: string; role: 'tool'; toolCallId: string; content: string };

/**
 * Why a run stopped for a person: `input_required` for a question or an input form, `tool_call` for
 * an approval. `metadata.turnkit` says which TurnKit interaction it is (`kind`, `toolName`,
 * `agentPath`, and the questions or the proposed input).
 */
export interface AgUiInterrupt {
  /** The interaction id: send it back as `resume[].interruptId`. */
  id: string;
  reason: 'input_required' | 'tool_call';
  message: string;
  /**
   * The top-level tool call that waits (an `AskUserQuestion` call, a tool that needs approval), or
   * the interaction id itself when no top-level call is the one asking (a tool's `ctx.ask`, a
   * sub-agent's question or approval bubbling up).
   */
  toolCallId: string;
  /** JSON Schema of the `payload` that answers it. */
  responseSchema: Record<string, unknown>;
  /** ISO time after which an answer is no longer used (the interaction resolves as timed out). */
  expiresAt?: string;
  metadata: { turnkit: Record<string, unknown> };
}

/** How a run ended, in `RUN_FINISHED`. */
export type AgUiOutcome =
  | { type: 'success' }
  | { type: 'interrupt'; interrupts: AgUiInterrupt[] }
  | { type: 'cancelled' };

/** Token counts of the model calls a run made. */
export interface AgUiUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Every event the handler emits. */
export type AgUiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string }
  | {
      type: 'RUN_FINISHED';
      threadId: string;
      runId: string;
      outcome: AgUiOutcome;
      /** The final assistant text of a completed run, or an agent's structured `output` (a JSON value). */
      result?: unknown;
      usage?: AgUiUsage[];
    }
  | { type: 'RUN_ERROR'; message: string; code: string; usage?: AgUiUsage[] }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string; role: 'tool' }
  | { type: 'MESSAGES_SNAPSHOT'; messages: AgUiMessage[] }
  | { type: 'STATE_SNAPSHOT'; snapshot: Record<string, unknown> }
  | { type: 'CUSTOM'; name: string; value: Record<string, unknown> };

/** The name of the `CUSTOM` event sent when an answer came after its interaction expired. */
export const INTERRUPT_EXPIRED_EVENT = 'turnkit.interrupt_expired';

/**
 * The name of the `CUSTOM` event that says which agent plays the run (DESIGN §27): `{ agent, from }`
 * at each handoff, as it happens, and `{ agent }` just before the end of a run that an agent other
 * than the root plays (a run without handoffs sends none).
 */
export const ACTIVE_AGENT_EVENT = 'turnkit.active_agent';

/** The key of the snapshot in the AG-UI `state` (client-held mode). */
export const STATE_KEY = 'turnkit';
