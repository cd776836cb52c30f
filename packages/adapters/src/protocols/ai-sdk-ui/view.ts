/**
 * What a run looks like as AI SDK UI messages: the server's side of every comparison the stream
 * makes, and the body of `GET /chat/:id`. A user message is one UI message; everything the agent
 * did after it (its model calls, each a step, and their tool calls) is one assistant message.
 *
 * Tool parts take their state from the transcript and the pending interactions:
 * - a call with a result is `output-available`, or `output-error` for an error result, or
 *   `output-denied` when the human rejected it;
 * - a call waiting for approval (`needsApproval`) is `approval-requested`, with the interaction id
 *   as `approval.id`;
 * - a question asked with the agent's question tool is its own part at `input-available`, its input
 *   the normalised `{ questions }`;
 * - anything else that waits (whatever a tool's own code asks with `ctx.ask`, a shell ask, whatever
 *   a sub-agent asks) is a synthetic part at the end of the message, whose `toolCallId` is the
 *   interaction id: `tool-AskUserQuestion` for questions (`{ questions }`) and forms
 *   (`{ message, schema }`), `tool-<toolName>` for approvals (the calling tool's part stays open).
 */
import type { AnyAgent, ChatMessage, PendingInteraction, ToolCall, TurnResult } from '@turnkit/core';
import type { TurnkitMetadata, TurnkitPendingPart } from './client.js';

/** The tool name of synthetic question and form parts. */
export const QUESTION_PART_TOOL = 'AskUserQuestion';

/** The state of a tool part, as AI SDK 6 and 7 name them. */
export type UIToolState =
  | 'input-streaming'
  | 'input-available'
  | 'approval-requested'
  | 'approval-responded'
  | 'output-available'
  | 'output-error'
  | 'output-denied';

/** A tool part as the server sees it. */
export interface ToolPartView {
  toolCallId: string;
  toolName: string;
  input: unknown;
  state: Exclude<UIToolState, 'input-streaming' | 'approval-responded'>;
  output?: unknown;
  errorText?: string;
  /** The approval's id (the interaction id) while requested, or of a rejection when known. */
  approvalId?: string;
  /** A rejection's rationale. */
  reason?: string;
}

/** One model call: its text and its tool calls. */
export interface StepView {
  text: string;
  tools: ToolPartView[];
}

/** The assistant message after the last user message. */
export interface AssistantView {
  steps: StepView[];
  /** Synthetic parts of interactions that are not a top-level call's own part. */
  synthetic: ToolPartView[];
}

/**
 * Whether an interaction shows on its tool call's own part: the model of the agent playing the run
 * asked for it (an approval of its call, or a question of its question tool — whatever that tool is
 * named, and whichever agent of a handoff graph plays), not a tool's code (`askedByTool`) or a
 * sub-agent. Everything else gets a synthetic part.
 */
export function isDirect(
  interaction: Pick<PendingInteraction, 'kind' | 'agentPath' | 'askedByTool'>,
): boolean {
  if (interaction.agentPath.length !== 1 || interaction.askedByTool) return false;
  return interaction.kind === 'approval' || interaction.kind === 'question';
}

/** The metadata entry of a pending interaction. */
export function pendingPart(interaction: PendingInteraction): TurnkitPendingPart {
  return {
    id: interaction.id,
    kind: interaction.kind,
    toolCallId: isDirect(interaction) ? interaction.toolCallId : interaction.id,
    agentPath: interaction.agentPath,
    expiresAt: interaction.expiresAt,
  };
}

/** JSON text as a value, or the text itself when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A tool error result's code and message (`{"ok":false,"error_code":…}`), or null. */
export function errorResult(value: unknown): { code: string; message: string; rationale?: string } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { ok, error_code: code, message, rationale } = value as Record<string, unknown>;
  if (ok !== false || typeof code !== 'string') return null;
  return {
    code,
    message: typeof message === 'string' ? message : code,
    ...(typeof rationale === 'string' ? { rationale } : {}),
  };
}

/** A call's input: the question tool's normalised `{ questions }`, else the parsed arguments. */
export function callInput(agent: AnyAgent | undefined, call: ToolCall): unknown {
  const tool = agent?.toolIndex.get(call.function.name);
  if (tool?.kind === 'question') {
    const parsed = tool.parse(call.function.arguments);
    if (parsed.ok) return { questions: parsed.questions };
  }
  return parseJson(call.function.arguments);
}

/** A call's state from its result (if any) and the approval it waits for (if any). */
function callState(
  result: string | undefined,
  waiting: PendingInteraction | undefined,
): Pick<ToolPartView, 'state' | 'output' | 'errorText' | 'approvalId' | 'reason'> {
  if (result === undefined) {
    if (waiting?.kind === 'approval') return { state: 'approval-requested', approvalId: waiting.id };
    return { state: 'input-available' };
  }
  const value = parseJson(result);
  const error = errorResult(value);
  if (error?.code === 'rejected_by_user') {
    return { state: 'output-denied', ...(error.rationale !== undefined ? { reason: error.rationale } : {}) };
  }
  if (error) return { state: 'output-error', errorText: error.message };
  return { state: 'output-available', output: value };
}

/**
 * A synthetic part for an interaction that has no part of its own. A hook's review (DESIGN §26) is
 * an approval part whose input is what is under review (`{ hook, point, subject, reason? }`), named
 * after the tool it guards, or `review` at a model point; it is approved or rejected as any approval.
 */
export function syntheticPart(interaction: PendingInteraction): ToolPartView {
  if (interaction.kind === 'review') {
    return {
      toolCallId: interaction.id,
      toolName: interaction.toolName || 'review',
      input: interaction.payload,
      state: 'approval-requested',
      approvalId: interaction.id,
    };
  }
  if (interaction.kind === 'approval') {
    const payload = interaction.payload as { toolName?: string; input?: unknown };
    return {
      toolCallId: interaction.id,
      toolName: payload.toolName ?? interaction.toolName,
      input: payload.input ?? {},
      state: 'approval-requested',
      approvalId: interaction.id,
    };
  }
  return {
    toolCallId: interaction.id,
    toolName: QUESTION_PART_TOOL,
    input: interaction.payload,
    state: 'input-available',
  };
}

/** Index of the first message after the last user message (where the assistant message starts). */
export function assistantStart(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === 'user') return index + 1;
  }
  return 0;
}

/** The assistant message made of `messages[from…]`, with the run's pending interactions. */
export function assistantView(
  messages: readonly ChatMessage[],
  from: number,
  pending: readonly PendingInteraction[],
  agent: AnyAgent | undefined,
): AssistantView {
  const results = new Map<string, string>();
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'tool') results.set(message.tool_call_id, message.content);
  }
  const direct = new Map<string, PendingInteraction>();
  const synthetic: ToolPartView[] = [];
  for (const interaction of pending) {
    if (isDirect(interaction)) direct.set(interaction.toolCallId, interaction);
    else synthetic.push(syntheticPart(interaction));
  }
  const steps: StepView[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'assistant') continue;
    const tools = (message.tool_calls ?? []).map((call) => {
      const waiting = direct.get(call.id);
      const input = waiting?.kind === 'question' ? waiting.payload : callInput(agent, call);
      return {
        toolCallId: call.id,
        toolName: call.function.name,
        input,
        ...callState(results.get(call.id), waiting),
      };
    });
    steps.push({ text: message.content ?? '', tools });
  }
  return { steps, synthetic };
}

/** The finish metadata of a run: its status and what it waits for (and its snapshot, client-held). */
export function turnkitMetadata(
  result: Pick<TurnResult<unknown>, 'runId' | 'status' | 'pending'> & {
    snapshot?: string;
    activeAgent?: string;
  },
  withSnapshot: boolean,
): TurnkitMetadata {
  return {
    runId: result.runId,
    status: result.status,
    pending: result.pending.map((interaction) => pendingPart(interaction)),
    ...(withSnapshot && result.snapshot !== undefined ? { snapshot: result.snapshot } : {}),
    ...(result.activeAgent !== undefined ? { activeAgent: result.activeAgent } : {}),
  };
}
