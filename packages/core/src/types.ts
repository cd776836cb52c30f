/**
 * The public data shapes: OpenAI-style chat messages and tool specs, pending interactions, answers,
 * events and turn results. Everything here is plain JSON, so it can cross a process boundary.
 */

/** A function call the model asked for, as in the OpenAI chat-completions format. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string /** JSON text, exactly as the model produced it */; arguments: string };
}

export interface SystemMessage {
  role: 'system';
  content: string;
}
export interface UserMessage {
  role: 'user';
  content: string;
  name?: string;
}
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
/** A message in the OpenAI chat-completions shape. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool as offered to the model (OpenAI tool shape). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Token counts reported by a model call. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What a model adapter receives for one call. */
export interface ModelRequest {
  /** The system message (the agent's instructions) first, then the transcript. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  /** Called with each piece of assistant text as it streams in. */
  onDelta?: (text: string) => void;
}

/** What a model adapter returns for one call. */
export interface ModelResponse {
  message: AssistantMessage;
  usage?: ModelUsage;
}

/** A language model behind the loop. Throw a `ModelError` (after your own retries) when the call fails. */
export interface ModelAdapter {
  name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}

/** One option of a question, after normalisation. */
export interface QuestionOption {
  label: string;
  description: string;
  /** Optional markdown shown beside the option. */
  preview?: string;
}

/** One question of an AskUserQuestion call, after normalisation. */
export interface Question {
  id: string;
  question: string;
  header: string;
  options: QuestionOption[];
  multiSelect: boolean;
}

/** Payload of a pending question. */
export interface QuestionPayload {
  questions: Question[];
}

/** Payload of a pending approval. */
export interface ApprovalPayload {
  toolName: string;
  /** The parsed tool input the model proposed. */
  input: unknown;
  reason?: string;
}

/** Something the run waits for a human (or a parent agent) to resolve. */
export interface PendingInteraction {
  id: string;
  kind: 'question' | 'approval';
  /** The tool call (in the innermost agent) that asked. */
  toolCallId: string;
  toolName: string;
  /** Agent names from the top agent down to the one that asked. */
  agentPath: string[];
  createdAt: string;
  expiresAt: string | null;
  payload: QuestionPayload | ApprovalPayload;
}

/** The answer to one question: a label, several labels, choices with free text, or a skip. */
export type QuestionAnswer =
  | string
  | string[]
  | { selected: string[]; other?: string; note?: string }
  | { skipped: true };

/**
 * Answers to a pending question: keyed by header, question text, question id or index (matched in
 * that order), a positional array, or a plain string when the interaction has one question.
 */
export type Answers = Record<string, QuestionAnswer> | QuestionAnswer[] | string;

/** A human's response to one pending interaction: the generic form behind `answerQuestion`, `approve`… */
export type InteractionResponse =
  | { id: string; type: 'answer'; answers: Answers }
  | { id: string; type: 'approve'; rationale?: string; editedInput?: unknown }
  | { id: string; type: 'reject'; rationale?: string }
  | { id: string; type: 'cancel'; reason?: string };

/** How a turn ended. `running` only appears in session results while a claim is live. */
export type TurnStatus = 'completed' | 'needs_input' | 'failed' | 'max_steps' | 'aborted' | 'running';

/** Work counted in one turn (one call of runTurn, answerQuestion…). */
export interface TurnUsage {
  modelCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
}

/** Fields every event carries. */
export interface EventBase {
  runId: string;
  turn: number;
  /** Increases across the whole run; kept in the snapshot. */
  seq: number;
  /** ISO time. */
  at: string;
  agentPath: string[];
}

/** Everything `onEvent` can receive, in order. Each turn ends with exactly one `turn_*` end event. */
export type AgentEvent = EventBase &
  (
    | { type: 'turn_started'; trigger: 'input' | 'respond' | 'retry' | 'continue' | 'expire' }
    | { type: 'model_started'; step: number }
    | { type: 'model_delta'; text: string }
    | { type: 'model_finished'; toolCalls: number; usage?: ModelUsage }
    | { type: 'tool_started'; toolCallId: string; toolName: string }
    | { type: 'tool_finished'; toolCallId: string; toolName: string; ok: boolean; errorCode?: string }
    | { type: 'interaction_requested'; interaction: PendingInteraction }
    | {
        type: 'interaction_resolved';
        interactionId: string;
        toolCallId: string;
        kind: 'question' | 'approval';
        resolution: ResolutionKind;
        rationale?: string;
        /** The tool result the model receives. */
        result: string;
      }
    | { type: 'turn_paused'; pending: string[] }
    | { type: 'turn_completed'; output: string }
    | { type: 'turn_failed'; error: { code: string; message: string } }
    | { type: 'turn_aborted' }
    | { type: 'turn_max_steps'; maxSteps: number }
  );

/** How an interaction was resolved. */
export type ResolutionKind =
  | 'answered'
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'timed_out'
  | 'defaulted'
  | 'superseded';

/** The type of one event, e.g. `'turn_paused'`. */
export type AgentEventType = AgentEvent['type'];

/** What every public entry point returns. */
export interface TurnResult {
  /** Stable across every turn of one conversation. */
  runId: string;
  status: TurnStatus;
  /** `status === 'needs_input'`. */
  needsInput: boolean;
  /** The first pending interaction, or null. */
  pendingQuestion: PendingInteraction | null;
  /** All pending interactions (questions and approvals). */
  pending: PendingInteraction[];
  /** The final assistant text when completed. */
  output: string | null;
  /** Always present, also when completed or failed: pass it to the next call. */
  snapshot: string;
  /** The whole transcript (no system message), OpenAI chat format. */
  messages: ChatMessage[];
  /** What happened in this call. */
  events: AgentEvent[];
  usage: TurnUsage;
  error: { code: string; message: string } | null;
}

/** Options every entry point accepts. */
export interface TurnOptions {
  /** Called synchronously with each event; a throwing handler never breaks the run. */
  onEvent?: (event: AgentEvent) => void;
  /** Stops the turn gracefully: the result is `aborted`, finished work is kept. */
  signal?: AbortSignal;
  /** `false` for headless runs: the question tool is not offered and answers `user_input_unavailable`. */
  interactive?: boolean;
  /** Overrides the clock (otherwise `Date.now()`). */
  now?: Date;
}
