/**
 * The model contract (DESIGN §5, §23): chat messages and tool specs in the OpenAI shape, and what a
 * `ModelAdapter` receives for one call — messages, tools, settings, the structured-output format —
 * and returns. Adapter authors start here.
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

/**
 * How the model samples, on the agent (`defineAgent({ modelSettings })`) and per call
 * (`TurnOptions.modelSettings`, merged over the agent's field by field). Every field is optional;
 * an adapter passes on those its provider knows and ignores the rest.
 */
export interface ModelSettings {
  temperature?: number;
  topP?: number;
  /** The most tokens one model call may produce. */
  maxOutputTokens?: number;
  /** `auto` (the provider's default), `none`, `required` (some tool), or one named tool. */
  toolChoice?: 'auto' | 'none' | 'required' | { type: 'function'; name: string };
  /** Whether the model may ask for several tool calls in one step. */
  parallelToolCalls?: boolean;
  /** Sequences at which the model stops generating. */
  stop?: string[];
  seed?: number;
  /**
   * Provider-specific options, keyed by provider (`{ openai: { reasoning_effort: 'low' } }`); an
   * adapter reads its own key. Merged per provider key when the call's settings have one too.
   */
  providerOptions?: Record<string, Record<string, unknown>>;
}

/**
 * The structured output an agent asks for (`defineAgent({ output })`): the final answer must be
 * JSON matching `schema`. TurnKit validates the answer itself whatever the adapter does.
 */
export interface ResponseFormat {
  /** A name for the format: the agent's name, reduced to `[A-Za-z0-9_-]`, at most 64 characters. */
  name: string;
  /** JSON Schema (draft 2020-12, from `z.toJSONSchema`) of the final answer. */
  schema: Record<string, unknown>;
}

/** What a model adapter receives for one call. */
export interface ModelRequest {
  /** The system message (the agent's instructions) first, then the transcript. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  /** Called with each piece of assistant text as it streams in. */
  onDelta?: (text: string) => void;
  /**
   * The agent's settings merged with the call's; absent when neither has any. Map each field to
   * the provider's parameter (OpenAI chat: `temperature`, `top_p`, `max_completion_tokens`,
   * `tool_choice` — a named tool as `{ type: 'function', function: { name } }` —,
   * `parallel_tool_calls`, `stop`, `seed`, and spread `providerOptions.openai` into the body);
   * leave out what the provider does not support rather than fail.
   */
  settings?: ModelSettings;
  /**
   * Present when the agent has an `output` schema: ask the provider for JSON matching `schema` on
   * its final answer (OpenAI: `response_format: { type: 'json_schema', json_schema: { name,
   * schema } }`; AI SDK: `responseFormat: { type: 'json', schema, name }`). A provider without
   * structured output may ignore it: TurnKit checks the answer and sends the issues back.
   */
  responseFormat?: ResponseFormat;
  /**
   * `compaction` when TurnKit asks the model to summarise the oldest messages of a long run
   * (`defineAgent({ history })`, DESIGN §22) rather than to play a step; absent otherwise.
   */
  purpose?: 'compaction';
}

/** What a model adapter returns for one call. */
export interface ModelResponse {
  message: AssistantMessage;
  usage?: ModelUsage;
  /**
   * What the call cost in US dollars, when the provider reports it. Budgets use it when the
   * agent's `pricing` has no entry for the model.
   */
  costUsd?: number;
}

/** Prices of one model, in US dollars per million tokens (an agent's `pricing`). */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** A language model behind the loop. Throw a `ModelError` (after your own retries) when the call fails. */
export interface ModelAdapter {
  name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * Optional: how many tokens `request` (its messages and tools) takes in this model's context
   * window. An agent with `history.maxTokens` uses it to decide when to compact; without it,
   * TurnKit estimates one token per 4 characters of the messages' and tools' JSON.
   */
  countTokens?(request: TokenCountRequest): number | Promise<number>;
}

/** What {@link ModelAdapter.countTokens} measures: the messages (system first) and tools of a model call. */
export interface TokenCountRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
}
