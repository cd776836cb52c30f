/**
 * The public data shapes: pending interactions, answers, events and turn results, plus (from
 * model.ts, re-exported here) chat messages, tool specs and the model contract. Everything here is
 * plain JSON, so it can cross a process boundary.
 */

import type { TRACING } from './keys.js';
import type { AssistantMessage, ChatMessage, ModelSettings, ModelUsage } from './model.js';

export type * from './model.js';

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
  /** Seed 003's context, when the asker gave one: references and a hint shown with the question. */
  context?: QuestionContext;
}

/** What helps a person answer a question: references (files, links, ids) and a short hint. */
export interface QuestionContext {
  refs?: string[];
  hint?: string;
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

/** Payload of a pending input form (a tool's `ctx.ask({ input })`). */
export interface InputPayload {
  message: string;
  /** The JSON Schema the value must match. */
  schema: Record<string, unknown>;
}

/**
 * Payload of a pending budget interaction (DESIGN §20): what the run has spent and the limits it
 * reached. `approve` with `extend` raises the limits and goes on; `reject` ends the turn
 * `budget_exceeded`.
 */
export interface BudgetPayload {
  spent: Spend;
  limit: BudgetLimits;
}

/**
 * What a run may spend (DESIGN §20), counted per run across turns: tokens (input + output), cost in
 * US dollars, tool calls, steps (model calls). A limit left out is not enforced.
 */
export interface BudgetLimits {
  tokens?: number;
  costUsd?: number;
  toolCalls?: number;
  steps?: number;
}

/** What a run has spent so far, across all its turns (its sub-agents' model calls and tools included). */
export interface Spend {
  /** Model calls. */
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** `inputTokens + outputTokens`. */
  tokens: number;
  /** Tool calls that started running. */
  toolCalls: number;
  /** From the agent's `pricing` table, or the cost the model adapter reported. */
  costUsd: number;
}

/** One approval given towards an interaction's quorum: who, why, when. */
export interface ApprovalRecord {
  principal: string;
  rationale?: string;
  at: string;
}

/**
 * Payload of a pending review (DESIGN §26): a hook asked a person to check `subject` at `point` —
 * the tool call `{ id, name, input }` (beforeTool), the tool's result (afterTool), the model's
 * response `{ text, toolCalls }` (afterModel) or the request's messages (beforeModel).
 */
export interface ReviewPayload {
  hook: string;
  point: 'beforeModel' | 'afterModel' | 'beforeTool' | 'afterTool';
  subject: unknown;
  reason?: string;
}

/**
 * What a pending interaction asks for: answers to questions, an approval decision, a form's value,
 * whether the run may spend more (`budget`, DESIGN §20), or (`in_doubt`, DESIGN §21) whether to run
 * again a call that may or may not have run: `approve` runs it again, `reject` tells the model so,
 * `provideInput` gives the result to record. An `in_doubt` payload is an {@link ApprovalPayload}
 * (tool name, input, reason).
 */
export type InteractionKind = 'question' | 'approval' | 'input' | 'budget' | 'in_doubt' | 'review';

/** Something the run waits for a human (or a parent agent) to resolve. */
export interface PendingInteraction {
  id: string;
  kind: InteractionKind;
  /** The tool call (in the innermost agent) that asked. */
  toolCallId: string;
  toolName: string;
  /** Agent names from the top agent down to the one that asked. */
  agentPath: string[];
  createdAt: string;
  expiresAt: string | null;
  payload: QuestionPayload | ApprovalPayload | InputPayload | BudgetPayload | ReviewPayload;
  /**
   * Who may respond (their principals, `TurnOptions.principal`); absent when anyone who can see
   * the run may. Anyone else gets `NOT_ASSIGNEE`.
   */
  assignees?: string[];
  /** Approvals: how many distinct principals must approve before the call goes on (absent: one). */
  quorum?: number;
  /** `false`: the principal that started the run may not respond (four eyes). Absent: it may. */
  allowRequester?: boolean;
  /** Approvals given so far towards the `quorum` (absent until the first). */
  approvals?: ApprovalRecord[];
  /**
   * True when the tool's own code asked (`ctx.ask`): the interaction is then not the model's call
   * itself (its `toolCallId` names the call whose tool is asking). Absent otherwise.
   */
  askedByTool?: true;
  /**
   * Set when a hook asked a question or a form (DESIGN §26): which hook, at which point, and the
   * subject it was looking at. A `review` interaction carries the same in its payload.
   */
  review?: ReviewPayload;
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
  | {
      id: string;
      type: 'approve';
      rationale?: string;
      editedInput?: unknown;
      /** Budget interactions: how much to add to each limit before going on. */
      extend?: BudgetLimits;
      /** Reviews (DESIGN §26): go on with this subject instead (re-validated). */
      edit?: unknown;
      /**
       * `'run'`: later calls of the same tool in this run, with an input judged the same, pass
       * without asking (a tool's approval, or a `beforeTool` review).
       */
      remember?: 'run';
    }
  | { id: string; type: 'reject'; rationale?: string }
  | { id: string; type: 'cancel'; reason?: string }
  /** The value of an input form (a tool's `ctx.ask({ input })`), checked against its schema. */
  | { id: string; type: 'input'; value: unknown };

/** How a turn ended. `running` only appears in session results while a claim is live. */
export type TurnStatus =
  | 'completed'
  | 'needs_input'
  | 'failed'
  | 'max_steps'
  | 'aborted'
  | 'budget_exceeded'
  /** A `beforeModel` hook denied the model call (DESIGN §26); `error` says which and why. */
  | 'blocked'
  | 'running';

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
    | {
        type: 'turn_started';
        trigger: 'input' | 'respond' | 'retry' | 'continue' | 'expire' | 'stop';
        /** An `input` turn: the messages it adds to the conversation (a recording's turn input, DESIGN §28). */
        input?: ChatMessage[];
      }
    | { type: 'model_started'; step: number }
    | { type: 'model_delta'; text: string }
    | {
        type: 'model_finished';
        toolCalls: number;
        usage?: ModelUsage;
        /** The assistant message the model produced (its text and tool calls), as kept in the transcript. */
        message: AssistantMessage;
      }
    | { type: 'tool_started'; toolCallId: string; toolName: string }
    | {
        type: 'tool_finished';
        toolCallId: string;
        toolName: string;
        ok: boolean;
        errorCode?: string;
        /** The result text the model reads (what a replay returns in place of running the tool, DESIGN §28). */
        result?: string;
      }
    | {
        /**
         * A call recorded (pending or in flight) under a tool that changed before it could run: the
         * tool is gone (`removed`) or its input schema changed and the call's input no longer
         * validates (`schema_changed`). The call was not run; its result is `tool_changed` (DESIGN §21).
         */
        type: 'tool_changed';
        toolCallId: string;
        toolName: string;
        reason: 'removed' | 'schema_changed';
      }
    | {
        /**
         * A call recorded `started` whose worker died before its result was written (its claim was
         * taken over): it may or may not have run. `policy` is the tool's `onInDoubt`: `retry` runs
         * it again, `ask` pauses on an `in_doubt` interaction, `reconcile` calls the tool's function.
         */
        type: 'tool_in_doubt';
        toolCallId: string;
        toolName: string;
        policy: 'retry' | 'ask' | 'reconcile';
      }
    | { type: 'interaction_requested'; interaction: PendingInteraction }
    /**
     * Late input (DESIGN §30), emitted by the worker playing the turn: a message queued with `send`
     * (`mode: 'queue'`) reached it (`message_queued`: it holds the message now), then was added to
     * the transcript before a model call, once (`message_delivered`).
     */
    | {
        type: 'message_queued' | 'message_delivered';
        messageId: string;
        /** `message_delivered`: the messages it added (a recording replays them at this point, DESIGN §28). */
        messages?: ChatMessage[];
      }
    | {
        /** A hook decided something at a point (DESIGN §26); a hook that returns nothing emits none. */
        type: 'hook_decision';
        hook: string;
        point: 'beforeModel' | 'afterModel' | 'beforeTool' | 'afterTool';
        decision: 'rewrite' | 'result' | 'ask' | 'deny';
        /** The tool call, at a tool point. */
        toolCallId?: string;
      }
    | {
        /** One approval towards a quorum, short of it: the interaction stays pending. */
        type: 'approval_recorded';
        interactionId: string;
        toolCallId: string;
        principal: string;
        rationale?: string;
        /** Distinct approvals so far, and how many are needed. */
        approvals: number;
        quorum: number;
      }
    | {
        type: 'interaction_resolved';
        interactionId: string;
        toolCallId: string;
        kind: InteractionKind;
        /** The audit decision: what the human (or the clock, or a new message) decided. */
        decision: Decision;
        /** Finer than `decision`: `defaulted` is a timeout answered with the recommended options. */
        resolution: ResolutionKind;
        rationale?: string;
        /** Who responded (`TurnOptions.principal`), when known. */
        principal?: string;
        /** Approvals with a quorum: every approval that counted. */
        approvals?: ApprovalRecord[];
        /** Budget interactions approved with an extension: what was added to the limits. */
        extend?: BudgetLimits;
        /** Approvals decided with an edited input: that input (the model proposed another). */
        editedInput?: unknown;
        /** Questions answered: each question's answer, normalised (what a replay answers with, DESIGN §28). */
        answers?: (
          | { questionId: string; selected: string[]; other?: string; note?: string }
          | { questionId: string; skipped: true }
        )[];
        /** Input forms: the value given. */
        value?: unknown;
        /**
         * The tool result the model receives; empty when the call goes on first (an approval runs
         * its tool, a tool's `ctx.ask` runs its `resume`).
         */
        result: string;
      }
    | { type: 'turn_paused'; pending: string[] }
    | { type: 'turn_completed'; output: string }
    | { type: 'turn_failed'; error: { code: string; message: string } }
    | { type: 'turn_aborted' }
    /** A `beforeModel` hook denied the model call (DESIGN §26). */
    | { type: 'turn_blocked'; error: { code: string; message: string } }
    | { type: 'turn_max_steps'; maxSteps: number }
    /** A budget interaction was rejected: the turn ends without spending more. */
    | { type: 'turn_budget_exceeded'; spent: Spend; limit: BudgetLimits }
    | {
        /** The oldest messages were replaced by one summary before a model call (DESIGN §22). */
        type: 'history_compacted';
        /** Messages removed from the window (kept system messages are not counted). */
        removed: number;
        /** Messages of the window kept after the summary. */
        kept: number;
        /** Characters of the summary message (0 for `'drop'`). */
        summaryChars: number;
        /** The model request's tokens before and after (counted or estimated). */
        tokensBefore: number;
        tokensAfter: number;
        /** `model` (the default summary), `drop`, or `custom` (the agent's `compact` function). */
        strategy: 'model' | 'drop' | 'custom';
      }
    /**
     * The run was handed from one agent to another (DESIGN §27): the next model call is `to`'s. The
     * event's `agentPath` is the agent that handed it over.
     */
    | { type: 'handoff'; from: string; to: string }
  );

/** The audit decision on an interaction (DESIGN §12). */
export type Decision = 'answered' | 'approved' | 'rejected' | 'cancelled' | 'timed_out' | 'superseded';

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

/** The fields every {@link TurnResult} has, whatever its status. */
export interface TurnResultFields {
  /** Stable across every turn of one conversation. */
  runId: string;
  status: TurnStatus;
  /** `status === 'needs_input'`. */
  needsInput: boolean;
  /** The first pending interaction, or null. */
  pendingQuestion: PendingInteraction | null;
  /** All pending interactions (questions and approvals). */
  pending: PendingInteraction[];
  /** When completed: the final assistant text, or with an `output` schema the parsed value. */
  output: unknown;
  /** Always present, also when completed or failed: pass it to the next call. */
  snapshot: string;
  /** The whole transcript (no system message), OpenAI chat format. */
  messages: ChatMessage[];
  /** What happened in this call. */
  events: AgentEvent[];
  usage: TurnUsage;
  /** What the run has spent so far, across all its turns (what budgets count). */
  spend: Spend;
  /** The run's budget now (the agent's, the call's, plus every extension); absent without one. */
  budget?: BudgetLimits;
  error: { code: string; message: string } | null;
  /**
   * The name of the agent playing the run now (DESIGN §27): the root agent's, or after a handoff
   * the agent it was handed to — the one that asked, when the run waits.
   */
  activeAgent: string;
}

/**
 * What every public entry point returns, narrowed by `status`: `completed` has its `output` (the
 * final text, or the value parsed with the agent's `output` schema: `TOutput`), `needs_input` its
 * `pendingQuestion`; every other status has `output: null` and `pendingQuestion: null`.
 *
 * @example
 * const result = await runTurn(agent, { input: 'Thaw one K562 vial' });
 * if (result.status === 'completed') console.log(result.output);
 * else if (result.status === 'needs_input') console.log(result.pendingQuestion.id);
 */
export type TurnResult<TOutput = string> =
  | (TurnResultFields & {
      status: 'completed';
      needsInput: false;
      pendingQuestion: null;
      output: TOutput;
    })
  | (TurnResultFields & {
      status: 'needs_input';
      needsInput: true;
      pendingQuestion: PendingInteraction;
      output: null;
    })
  | (TurnResultFields & {
      status: 'failed' | 'max_steps' | 'aborted' | 'budget_exceeded' | 'blocked' | 'running';
      needsInput: false;
      pendingQuestion: null;
      output: null;
    });

/** A W3C trace context: the span of the turn that paused, for the turn that resumes it to link to (DESIGN §15). */
export interface TraceContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/** How a span ended: what the turn came to, a model call's usage, a tool's error code… */
export interface SpanOutcome {
  /** A turn's status (`completed`, `needs_input`…), or `incomplete` for a call a pause or an abort left. */
  outcome?: string;
  usage?: ModelUsage;
  /** A tool result's `error_code`, or `MODEL_ERROR` for a failed model call. */
  errorCode?: string;
  /** The interactions a turn paused on. */
  interactionIds?: string[];
  /** A model call's cost in US dollars (from the agent's `pricing` or the adapter); a turn's run total. */
  costUsd?: number;
  /** A turn: what the run has spent so far, across turns. */
  spend?: Spend;
}

/**
 * A pending interaction once it is resolved, for the span that shows the human's part of a run
 * (DESIGN §15): what was asked, how long it waited and what was decided. No answer text, rationale
 * or edited input: those stay in the events and the snapshot.
 */
export interface InteractionSpanInfo {
  runId: string;
  /** The agent whose call asked (a sub-agent's name for a bubbled interaction). */
  agent: string;
  interactionId: string;
  kind: InteractionKind;
  /** The tool that asked, or whose call waited for approval. */
  toolName: string;
  toolCallId: string;
  decision: Decision;
  /** From the interaction's `createdAt` to its resolution, in ms (absent when either is unreadable). */
  waitMs?: number;
  /** The span context of the turn that paused on it (the snapshot's `trace`), when it is known. */
  link?: TraceContext;
}

/** One span of a turn's trace, and the spans it starts (see {@link Telemetry}). */
export interface TelemetrySpan {
  startModelCall(info: { runId: string; agent: string; model: string; step: number }): TelemetrySpan;
  startTool(info: { runId: string; agent: string; toolName: string; toolCallId: string }): TelemetrySpan;
  /** A sub-agent's run, under the tool call that started it. */
  startAgent(info: { runId: string; agent: string; agentPath: string[] }): TelemetrySpan;
  /**
   * The human's part (optional): an interaction resolved for this turn — answered, approved,
   * rejected, cancelled, timed out or superseded — started and ended at once, under the turn that
   * goes on from it. A `TelemetrySpan` without it traces no interactions.
   */
  startInteraction?(info: InteractionSpanInfo): TelemetrySpan;
  end(outcome?: SpanOutcome): void;
  /** This span's W3C context when it is recorded: kept in the snapshot of a paused turn. */
  readonly traceContext?: TraceContext;
}

/**
 * Where the spans of turns go — implement it to report to anything, and pass it to
 * `defineTelemetry`. Each turn is one span; its model calls and tools are children; a turn that
 * resumes a paused one links to it (`link`), in any process.
 */
export interface TurnTracer {
  startTurn(info: {
    runId: string;
    agent: string;
    turn: number;
    trigger: string;
    link?: TraceContext;
  }): TelemetrySpan;
}

/**
 * The `telemetry` option of an agent or a call: `otelTelemetry()` from `@turnkit/adapters/otel`
 * for OpenTelemetry, or `defineTelemetry(tracer)` for your own {@link TurnTracer}.
 */
export interface Telemetry extends TurnTracer {
  /** TurnKit's tracing code (internal: the loop calls it at each span's start and end). */
  readonly [TRACING]: object;
}

/** A hook as options hold it (made by `defineHook` or `toolPolicy`; its functions are the hook's own). */
export interface HookHandle {
  readonly kind: 'hook';
  readonly name: string;
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
  /**
   * Receives what clients must not see: the full error of a failed model call (provider text, base
   * URL, model id), while the result, events and snapshot carry only its public message. An
   * `onError` that throws never breaks the run.
   */
  onError?: (error: unknown, info: { runId: string; agentPath: string[] }) => void;
  /**
   * Who makes this call (e.g. the user an HTTP handler's `authorize` names). A new run records it in
   * its snapshot; a run recorded with another principal is refused as `RUN_NOT_FOUND`, so a caller
   * cannot even learn that it exists. Runs recorded without one accept any caller. `undefined` is
   * the same as leaving it out.
   */
  principal?: string | undefined;
  /** Spans of this call (overrides the agent's `telemetry`). */
  telemetry?: Telemetry;
  /**
   * Settings for this call's model calls, merged over the agent's `modelSettings` (sub-agents keep
   * their own agent's).
   */
  modelSettings?: ModelSettings;
  /**
   * This call's budget, per limit over the agent's `budget` (DESIGN §20): counted per run across
   * turns, plus whatever `approve(…, { extend })` added.
   */
  budget?: BudgetLimits;
  /**
   * Hooks for this call (DESIGN §26), made by `defineHook` or `toolPolicy`, run after the agent's;
   * sub-agents run only their own agent's. A review one of them asked goes on at its place in this
   * list: give the same hooks to the call that decides it, or the hooks after it do not run (a run
   * that has no hook at all then is `CONFIG_INVALID`: hooks carry the code that decides reviews).
   */
  hooks?: readonly HookHandle[];
}
