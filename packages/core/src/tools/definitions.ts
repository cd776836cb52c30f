/**
 * The shapes of tools and agents: what `defineTool`, `askUserQuestion`, `agentTool` and
 * `defineAgent` produce and the interpreter reads. Types only, in one file, because an agent holds
 * tools and an agent tool holds an agent.
 */
import type SuperJSON from 'superjson';
import type { z } from 'zod';
import type { AnyHook } from '../hooks/index.js';
import type { QuestionLimits } from '../questions/index.js';
import type { DecodedSnapshot, SnapshotKeys } from '../snapshot/index.js';
import type {
  ApprovalRecord,
  BudgetLimits,
  ChatMessage,
  ModelAdapter,
  ModelPrice,
  ModelSettings,
  PendingInteraction,
  Question,
  QuestionContext,
  ResponseFormat,
  Telemetry,
  ToolSpec,
  TurnResult,
} from '../types.js';
import type { History } from './history-config.js';
import type { KeptAskOptions } from './kept-asks.js';

/** What a tool's `execute` (and `needsApproval`) receives besides its input. */
export interface ToolContext<Context = unknown> {
  /** Aborted when the turn is aborted or the tool's timeout passes. */
  signal: AbortSignal;
  runId: string;
  toolCallId: string;
  /** Name of the agent running the tool. */
  agent: string;
  /** Agent names from the top agent down to this one. */
  agentPath: string[];
  /** `<runId>:<toolCallId>`: the same when an interrupted call runs again, so side effects can deduplicate. */
  idempotencyKey: string;
  /** The application's own state for this run; changes are saved in the snapshot. */
  context: Context;
  /**
   * Pauses the call to ask a human, mid-execution (DESIGN §14): `return ctx.ask(request, state)`.
   * The turn pauses like any other interaction; when it is answered, the tool's `resume(input,
   * response, ctx)` runs with `response.state` — `execute` never runs again, so nothing it did
   * before asking is done twice. `state` is any value the context could hold (kept with superjson).
   */
  ask(request: AskRequest, state?: unknown): AskSignal;
}

/** One question of a `ctx.ask({ questions })` request: AskUserQuestion's input shape. */
export interface QuestionInput {
  id?: string;
  question: string;
  header: string;
  /** 2 or more choices, or none (`[]` or left out) for a free-text question. Plain strings are labels. */
  options?: (string | { label: string; description: string; preview?: string })[];
  multiSelect?: boolean;
  /** References and a hint shown with the question (seed 003). */
  context?: QuestionContext;
}

/** What `ctx.ask` puts to a human: questions, an approval, or a form (DESIGN §14). */
export type AskRequest =
  /** Checked as the question tool checks its input, within `limits` (default: the agent's question tool's). */
  (
    | { questions: QuestionInput[]; limits?: Partial<QuestionLimits> }
    | { approval: { reason: string; input?: unknown } }
    /**
     * A form: `schema` a zod schema, or `jsonSchema` a JSON Schema kept exactly as given (what an MCP
     * server's elicitation sends); either way the value is checked against it.
     */
    | {
        input:
          | { message: string; schema: z.ZodType }
          | { message: string; jsonSchema: Record<string, unknown> };
      }
  ) &
    KeptAskOptions & {
      /** The interaction expires this long after it is asked (then `resume` is not called). */
      timeoutMs?: number;
      /** Who may respond (principals), or a function of the tool's input and context (DESIGN §20). */
      assignees?: Assignees<never, never>;
      /** Approvals: how many distinct principals must approve before `resume` runs (default 1). */
      quorum?: number;
      /** `false`: the principal that started the run may not respond (four eyes). */
      allowRequester?: boolean;
    };

/**
 * Who may respond to an interaction (DESIGN §20): principals (`TurnOptions.principal`, or what an
 * HTTP handler's `authorize` returned), or a function of the input and the tool's context that
 * returns them when the interaction is asked. Anyone else gets `NOT_ASSIGNEE`.
 */
export type Assignees<Input = unknown, Context = unknown> =
  | string[]
  | {
      pick(input: Input, ctx: ToolContext<Context>): string[] | Promise<string[]>;
    }['pick'];

/**
 * Who may decide a tool's approvals, and how many of them must approve (DESIGN §20); reminders and
 * escalation before `approvalTimeoutMs` (DESIGN §30).
 */
export interface ApprovalPolicy<Input = unknown, Context = unknown> extends KeptAskOptions {
  /** Who may approve or reject; absent: anyone who can see the run. */
  assignees?: Assignees<Input, Context>;
  /** How many distinct principals must approve before the tool runs (default 1); any rejection rejects. */
  quorum?: number;
  /** `false`: the principal that started the run may not decide (four eyes). Default `true`. */
  allowRequester?: boolean;
  /**
   * The key an approval given with `remember: 'run'` keeps (DESIGN §26): later calls of this tool
   * in the run whose input has the same key pass without asking. Default: the input itself.
   */
  rememberBy?: (input: Input) => string;
}

/** What a tool returns to pause: made by `ctx.ask`, recognised by the loop. Opaque. */
export interface AskSignal {
  readonly kind: 'turnkit.ask';
  readonly request: AskRequest;
  readonly state: unknown;
}

/** One question's answer as `resume` reads it: the chosen labels plus free text, or a skip. */
export type AnsweredQuestion = { selected: string[]; other?: string; note?: string } | { skipped: true };

/** What a tool's `resume` receives: the human's response, tagged by kind, and the state it asked with. */
export type AskResponse<State = unknown> =
  /** Answers keyed by question header. */
  | { kind: 'question'; answers: Record<string, AnsweredQuestion>; state: State }
  | {
      kind: 'approval';
      approved: boolean;
      rationale?: string;
      editedInput?: unknown;
      /** With a `quorum`: every approval that counted (principal, rationale, time). */
      approvals?: ApprovalRecord[];
      state: State;
    }
  /** The form's value, validated against its schema. */
  | { kind: 'input'; value: unknown; state: State };

/**
 * What happens to a call found in doubt (DESIGN §21): its worker recorded it `started` and died (its
 * claim was taken over) before its result was written, so it may or may not have run.
 * - `'retry'` (default): run `execute` again, with the same `ctx.idempotencyKey` (at-least-once).
 * - `'ask'`: pause on an interaction of kind `'in_doubt'`: `approve` runs it again, `reject` tells
 *   the model it may or may not have run (`tool_in_doubt`), `provideInput` gives the result to record.
 * - a function: reconciles (e.g. looks the payment up by `ctx.idempotencyKey`) and returns the
 *   result to record; `execute` never runs again for that call.
 */
export type InDoubtPolicy<Input, Output, Context = unknown> =
  | 'retry'
  | 'ask'
  | ((input: Input, ctx: ToolContext<Context>) => Output | Promise<Output>);

/** `true`/a reason string (shown to the human) when the call must be approved first. */
export type ApprovalDecider<Input, Context = unknown> =
  | boolean
  | ((input: Input, ctx: ToolContext<Context>) => boolean | string | Promise<boolean | string>);

/** Definition of a function tool, as passed to {@link defineTool}. */
export interface FunctionToolConfig<Input, Output, Context = unknown> {
  name: string;
  description: string;
  /** zod schema of the input; offered to the model as JSON Schema (unless `parameters` is given). */
  input: z.ZodType<Input>;
  /**
   * The JSON Schema offered to the model instead of `input`'s, as given (e.g. an MCP server's own):
   * `input` still checks the model's arguments. Leave it out to offer `input` as JSON Schema.
   */
  parameters?: Record<string, unknown>;
  /** Runs the call; `return ctx.ask(…)` to pause for a human (then `resume` is required). */
  execute: (input: Input, ctx: ToolContext<Context>) => Output | AskSignal | Promise<Output | AskSignal>;
  /**
   * What to do with a call found in doubt after a worker died inside `execute` (sessions over a
   * store): `'retry'` (default), `'ask'` a human, or a function that reconciles. See {@link InDoubtPolicy}.
   */
  onInDoubt?: InDoubtPolicy<Input, Output, Context>;
  /**
   * Continues a call that asked (`ctx.ask`) once the human responded; may ask again the same way.
   * Not called when the interaction is cancelled, expires or is superseded: the model then gets the
   * standard result (`question_cancelled`, `question_timeout`…).
   */
  resume?: (
    input: Input,
    response: AskResponse,
    ctx: ToolContext<Context>,
  ) => Output | AskSignal | Promise<Output | AskSignal>;
  needsApproval?: ApprovalDecider<Input, Context>;
  /** The call fails with `tool_timeout` after this long. No limit when unset. */
  timeoutMs?: number | undefined;
  /** A pending approval expires (result `approval_timeout`) this long after it was asked. */
  approvalTimeoutMs?: number | undefined;
  /** Who may decide this tool's approvals, and how many must approve (with `needsApproval`). */
  approval?: ApprovalPolicy<Input, Context>;
  /**
   * The text the model reads when `execute` throws (default: the error's message, which the model
   * needs to recover). Redact here what the model must not see: connection strings, customer data.
   */
  errorMessage?: (error: unknown) => string;
}

/**
 * A function tool, made by {@link defineTool} (or `shellAskTool`), which puts on it the code that
 * runs a tool; `defineAgent` refuses one written by hand as an object (`CONFIG_INVALID`).
 */
export interface FunctionTool<Input = unknown, Output = unknown, Context = unknown>
  extends FunctionToolConfig<Input, Output, Context> {
  kind: 'function';
  /** The OpenAI tool spec, computed once. */
  spec: ToolSpec;
  /**
   * Hash of the input JSON Schema. A pending or in-flight call recorded under another hash runs only
   * if its input still validates; otherwise it gets a `tool_changed` result (DESIGN §21).
   */
  schemaHash: string;
}

/** Options of {@link askUserQuestion}; `remindBeforeMs` and `escalate` keep a waiting question (DESIGN §30). */
export interface AskUserQuestionOptions extends KeptAskOptions {
  /** Tool name the model sees; default `AskUserQuestion`. */
  name?: string | undefined;
  /** What the model reads about the tool; the default explains when (not) to ask. */
  description?: string | undefined;
  /** Overrides of the limits (else `ASK_*` environment variables, else 4 questions, 4 options…). */
  limits?: Partial<QuestionLimits>;
  /** A pending question expires this long after it was asked. */
  timeoutMs?: number | undefined;
  /** What an expired question gives the model: a `question_timeout` error, or each question's first option. */
  onExpire?: 'timeout' | 'recommended';
  /**
   * Who may answer (principals), or a function of the model's input (`{ questions }`) and the
   * run's context (DESIGN §20). Absent: anyone who can see the run.
   */
  assignees?: Assignees<{ questions: Question[] }>;
}

/** The question tool, made by {@link askUserQuestion}. */
export interface QuestionTool {
  kind: 'question';
  name: string;
  description: string;
  limits: QuestionLimits;
  timeoutMs: number | undefined;
  onExpire: 'timeout' | 'recommended';
  assignees?: Assignees<{ questions: Question[] }, never>;
  /** Reminders and escalation of its questions (DESIGN §30). */
  keep?: KeptAskOptions;
  spec: ToolSpec;
  schemaHash: string;
  /** Parses and validates the model's raw arguments. */
  parse(rawArguments: string): { ok: true; questions: Question[] } | { ok: false; message: string };
}

/**
 * A function tool of any input type. `never` (not `any`) keeps variance honest: any typed tool
 * fits, and the loop passes it only input that its own schema produced.
 */
export interface AnyFunctionTool {
  kind: 'function';
  name: string;
  description: string;
  input: z.ZodType;
  execute: (input: never, ctx: ToolContext<never>) => unknown;
  resume?: (input: never, response: AskResponse, ctx: ToolContext<never>) => unknown;
  needsApproval?:
    | boolean
    | ((input: never, ctx: ToolContext<never>) => boolean | string | Promise<boolean | string>);
  timeoutMs?: number | undefined;
  approvalTimeoutMs?: number | undefined;
  approval?: ApprovalPolicy<never, never>;
  errorMessage?: (error: unknown) => string;
  onInDoubt?: 'retry' | 'ask' | ((input: never, ctx: ToolContext<never>) => unknown);
  spec: ToolSpec;
  schemaHash: string;
  /** Set on tools made by `agentTool`: the loop runs the child agent instead of `execute`. */
  subagent?: SubagentBinding;
  /** Set on the built-in `answer_subagent` tool. */
  builtin?: 'answer_subagent';
  /**
   * Set with `subagent` and `builtin` (by `agentTool` and `answerSubagentTool`): the interpreter's
   * code that plays sub-agents, carried by the tool so that a program without agent tools bundles
   * none of it (DESIGN §18).
   */
  subagents?: SubagentRuntime;
}

/**
 * The sub-agent player an agent tool carries. Opaque at this layer: the interpreter's player also
 * plays the child (its functions take the interpreter's run).
 */
export interface SubagentRuntime {
  /** Makes the built-in `answer_subagent` tool a parent gets under the `parent` and `choose` policies. */
  answerTool(): AnyFunctionTool;
}

/** How a sub-agent's own questions and approvals travel (see `agentTool`). */
export type SubagentQuestionPolicy = 'bubble' | 'parent' | 'reject' | 'choose';

/** What ties an agent tool to its child agent. */
export interface SubagentBinding {
  agent: AnyAgent;
  questions: SubagentQuestionPolicy;
}

/** What a handoff's model is sent instead of the whole transcript (DESIGN §27); the stored transcript stays whole. */
export type InputFilter = (messages: ChatMessage[]) => ChatMessage[];

/** What the model writes when it calls a `transfer_to_<name>` tool. */
export interface HandoffInput {
  /** Why the run is handed over (kept in the transcript, for the agent that takes over). */
  reason?: string | undefined;
}

/** Options of `handoff(agent, options)` (DESIGN §27). */
export interface HandoffOptions {
  /** The tool name the model sees; default `transfer_to_<name>` (the agent's name, other characters as `_`). */
  toolName?: string | undefined;
  /** What the model reads about the tool; default: hand the conversation to that agent. */
  description?: string | undefined;
  /**
   * Trims what the handed-to agent's model is sent, on every one of its calls from the switch on
   * (e.g. drop the tool calls of the agent before it). The transcript stored and returned stays whole.
   */
  inputFilter?: InputFilter | undefined;
  /**
   * Pause for a person before the switch, as a tool approval does: `true` (anyone who sees the run),
   * or who may decide and how many must approve. A rejection leaves the run where it is.
   */
  approval?: boolean | ApprovalPolicy<HandoffInput> | undefined;
}

/** A handoff made by `handoff(agent, options)`: the agent a run may be handed to, and how. */
export interface Handoff {
  readonly kind: 'handoff';
  readonly agent: AnyAgent;
  readonly options: HandoffOptions;
}

/** An entry of `defineAgent({ handoffs })`: an agent (default options) or a `handoff(agent, options)`. */
export type HandoffEntry = AnyAgent | Handoff;

/** Any tool an agent can hold. Sub-agent tools (`agentTool`) are function tools too. */
export type Tool = AnyFunctionTool | QuestionTool;

/** How several human interactions requested in one step are handled. */
export type ParallelQuestionPolicy = 'batch' | 'reject' | 'single';

/** What a function `instructions` receives before each model call. */
export interface InstructionsContext<Context = unknown> {
  /** The run's application context (`runTurn(agent, { context })`), as tools see it. */
  context: Context;
  runId: string;
  /** Agent names from the top agent down to the one about to call its model. */
  agentPath: string[];
}

/**
 * The system message: a string, or made before each model call from the run's context. Declared
 * through a method so a function typed for your own context (`(ctx: InstructionsContext<Cart>)`)
 * fits, as a tool's `execute` does.
 */
export type Instructions =
  | string
  | {
      make(ctx: InstructionsContext): string | Promise<string>;
    }['make'];

/**
 * Called once per new pending interaction after its pause is stored (DESIGN §20), at least once:
 * dedupe on `pending.id`. `run` is the run as the store holds it (a sessions `SessionResult`).
 */
export type OnInteraction = (
  pending: PendingInteraction,
  run: TurnResult<unknown> & { version: number },
  notice: InteractionNotice,
) => void | Promise<void>;

/**
 * Why {@link OnInteraction} is called (DESIGN §30): `asked` (the first call, at least once),
 * `reminder` (its expiry is `remindBeforeMs` away) or `escalated` (an escalation step replaced its
 * assignees: `pending.assignees` are the new ones). Reminders and escalations come from the sweeper,
 * once each per interaction.
 */
export interface InteractionNotice {
  reason: 'asked' | 'reminder' | 'escalated';
}

/**
 * Configuration of {@link defineAgent}; `TOutput` is what its `output` schema parses to. `maxSteps`,
 * `version` and `snapshot`'s keys also take `undefined`, which means the same as leaving them out.
 */
export interface AgentConfig<TOutput = string> {
  /** Identifies the agent in snapshots, events and `agentPath`; a resume with another name is refused. */
  name: string;
  /**
   * The system message, sent first on every model call (never stored in the transcript). A function
   * is called before each model call (of this agent, also as a sub-agent); when it throws or returns
   * no string, the turn ends `failed` with `INSTRUCTIONS_ERROR` before the model is called (retry
   * it with `runTurn(agent, { snapshot })`).
   */
  instructions: Instructions;
  model: ModelAdapter;
  /**
   * The final answer's shape. The model is asked for JSON matching it (`request.responseFormat`);
   * an answer that is not JSON or does not match goes back to the model with the issues, within
   * `maxSteps` (a turn out of steps ends `max_steps`: retry it or send a message). `TurnResult.output`
   * is then the parsed value, typed — also when a completed run is read again from its snapshot
   * (another process, `sessions.get`): the stored answer is parsed with the schema the agent has
   * then, and one it now refuses (the schema changed) is a `SnapshotError` `SNAPSHOT_INCOMPATIBLE`:
   * give the agent a new `version` and convert stored answers in `migrate`. Sub-agents with an
   * `output` hand their parent the JSON text as the tool result.
   */
  output?: z.ZodType<TOutput>;
  /** Default settings of this agent's model calls; `TurnOptions.modelSettings` is merged over them. */
  modelSettings?: ModelSettings;
  tools?: Tool[];
  /** Model calls per turn before the turn ends `max_steps` (default 20). */
  maxSteps?: number | undefined;
  /**
   * With a `secret`, snapshots are HMAC-SHA256 signed and unsigned or edited ones are refused; with
   * `encrypt: true` too, they are AES-256-GCM encrypted, so whoever holds one reads neither the
   * transcript nor the context.
   */
  snapshot?: SnapshotKeys;
  /** Recorded in every snapshot; a snapshot with another version goes through `migrate`. */
  version?: string | undefined;
  /** Upgrades a snapshot written by another `version` of the agent; returns the snapshot to use. */
  migrate?: (decoded: DecodedSnapshot) => DecodedSnapshot;
  questions?: {
    /**
     * `batch` (default): every interaction of a step is pending at once. `reject`: a question in the
     * same step as another tool gets `question_not_alone`. `single`: one pending at a time; later
     * ones in the step get `interaction_pending`.
     */
    parallel?: ParallelQuestionPolicy;
  };
  /** The superjson instance for the application `context` (register your classes on it). Default: the global one. */
  serializer?: SuperJSON;
  /** The text the model reads when a tool throws, for tools without their own `errorMessage` (see defineTool). */
  toolErrorMessage?: (error: unknown) => string;
  /** Where the spans of this agent's turns go (e.g. `otelTelemetry()`); a call's own `telemetry` wins. */
  telemetry?: Telemetry;
  /**
   * What a run may spend, counted per run across turns (DESIGN §20); a call's `budget` is merged
   * over it per limit. Before a model call or step that would start past it, the run pauses on an
   * interaction of kind `budget`: `approve` with `extend` raises it, `reject` ends the turn
   * `budget_exceeded`.
   */
  budget?: BudgetLimits;
  /**
   * Prices per model, for the `costUsd` budget: keyed by the model adapter's `name` (or the part
   * after its last `:`, e.g. `gpt-4o` for `openai:gpt-4o`). Without an entry, the cost the adapter
   * reports (`ModelResponse.costUsd`) counts, else nothing.
   */
  pricing?: Record<string, ModelPrice>;
  /**
   * Long runs (DESIGN §22): before a model call whose request would pass `history.maxTokens`, the
   * oldest messages are replaced by one summary (event `history_compacted`); the snapshot and the
   * model then hold the summary and the recent messages. Made by `compaction({ maxTokens, ... })`
   * (see {@link HistoryOptions}); a plain object is refused.
   */
  history?: History;
  /**
   * Sessions and the HTTP handler in store mode (DESIGN §20): called once per new pending
   * interaction of this agent's runs, after the pause is stored — send the e-mail, post the chat
   * message. At least once: dedupe on the interaction id. Used when `createSessions` or
   * `createHandler` gives no `onInteraction` of its own (theirs wins); only the root agent's
   * counts (a sub-agent's asks are the root run's). `runTurn` alone stores nothing and never calls it.
   */
  onInteraction?: OnInteraction;
  /**
   * Agents this one may hand the run to (DESIGN §27): its model gets one `transfer_to_<name>` tool
   * per entry, and when it calls one, the rest of the run is played by that agent (its
   * instructions, model, tools, hooks, output schema and settings) on the same transcript. A
   * function returning the list is read when first needed, so two agents can name each other.
   * Only the run's root and the agents it hands to hand off; a sub-agent (agent tool) does not.
   */
  handoffs?: readonly HandoffEntry[] | (() => readonly HandoffEntry[]) | undefined;
  /**
   * Hooks (DESIGN §26), run in this order at each point — before and after each model call and
   * each tool call — before the call's own `TurnOptions.hooks`. A sub-agent runs its own.
   */
  hooks?: AnyHook[];
}

/** An agent made by {@link defineAgent}; `TOutput` is the type of its completed `TurnResult.output`. */
export interface Agent<TOutput = string>
  extends Readonly<Omit<AgentConfig<TOutput>, 'tools' | 'maxSteps' | 'version'>> {
  readonly tools: readonly Tool[];
  readonly maxSteps: number;
  readonly version: string;
  readonly parallel: ParallelQuestionPolicy;
  /** Tools by name. */
  readonly toolIndex: ReadonlyMap<string, Tool>;
  /**
   * Specs of every tool; of every tool but the question tools (for `interactive: false`); and of
   * every tool with the question tools taking `to` (for a sub-agent under the `choose` policy).
   */
  readonly toolSpecs: { all: ToolSpec[]; headless: ToolSpec[]; routed: ToolSpec[] };
  /** What the model is asked for when `output` is set: the schema as JSON Schema, computed once. */
  readonly responseFormat?: ResponseFormat;
}

/** An agent of any output type: what the loop, sessions and `agentTool` take. */
export type AnyAgent = Agent<unknown>;
