/**
 * The data of the loop: what the machine holds in its context (the transcript, the current step,
 * the record of resolved interactions) and the events the interpreter sends it. Plain JSON, so a
 * snapshot is this context written once.
 */
import type { SuperJSONResult } from 'superjson';
import type { NormalizedAnswer, QuestionLimits } from '../questions/index.js';
import type {
  ApprovalRecord,
  AssistantMessage,
  BudgetLimits,
  ChatMessage,
  InteractionKind,
  Question,
  ResolutionKind,
  Spend,
} from '../types.js';

/** A pending interaction as stored: model and user values stay JSON text (DESIGN §4). */
export interface StoredInteraction {
  id: string;
  kind: InteractionKind;
  toolCallId: string;
  toolName: string;
  agentPath: string[];
  createdAt: string;
  expiresAt: string | null;
  /**
   * Function tools (approvals, asks): the hash of the tool's input schema when asked. On resume,
   * another hash means the call's input is validated again against the tool's schema now; a call
   * whose tool is gone or whose input no longer validates gets a `tool_changed` result instead of
   * running (DESIGN §21). Questions are never compared by hash (their answers are checked against
   * the stored questions), though version 1 snapshots carry one.
   */
  schemaHash?: string;
  /** Questions, normalised, and the limits they were asked under. */
  questions?: Question[];
  limits?: QuestionLimits;
  onExpire?: 'timeout' | 'recommended';
  /** Approvals: the proposed input, as JSON text. */
  input?: string;
  reason?: string;
  /** Input forms: the message and the JSON Schema the value must match. */
  form?: { message: string; schema: Record<string, unknown> };
  /** Set when a tool's `ctx.ask` raised it: the tool's state (superjson), handed to its `resume`. */
  ask?: { state: SuperJSONResult | null };
  /** Who may respond (principals), resolved when it was asked; absent: anyone who sees the run. */
  assignees?: string[];
  /** Approvals: distinct principals needed (absent: one). */
  quorum?: number;
  /** `false`: the run's own principal may not respond. */
  allowRequester?: boolean;
  /** Approvals given so far towards the quorum. */
  approvals?: ApprovalRecord[];
  /** Budget interactions: what was spent and the limits reached when it was asked. */
  budget?: { spent: Spend; limit: BudgetLimits };
  /** Reminders and escalation (DESIGN §30), with what the sweeper did of them. */
  keep?: AskSchedule;
  /** Set when a hook asked (DESIGN §26): which hook, at which point, and the subject under review. */
  review?: ReviewTarget;
}

/**
 * An ask's reminder and escalation chain as stored (DESIGN §30): the steps at absolute times,
 * resolved when it was asked, and the marks the sweeper writes (in the same compare-and-set write
 * as their effect, so each fires once).
 */
export interface AskSchedule {
  /** Remind this long before `expiresAt` (whatever it is then: an extension moves it). */
  remindBeforeMs?: number;
  /** The expiry the reminder was sent for (a reminder is due again only after an extension). */
  remindedFor?: string;
  /** Escalation steps: when (ISO) and who answers from then on. */
  escalate?: { at: string; assignees: string[] }[];
  /** How many of `escalate` were applied. */
  escalated?: number;
}

/** A hook's point (DESIGN §26). */
export type HookPointName = 'beforeModel' | 'afterModel' | 'beforeTool' | 'afterTool';

/** What a hook's ask holds: the hook (by name and place in the list), the point, the subject (JSON text). */
export interface ReviewTarget {
  hook: string;
  point: HookPointName;
  index: number;
  subject: string;
}

/**
 * Where a point's hooks go on from (DESIGN §26), after a review was decided or a hook failed: from
 * hook `from` on the subject (JSON text) — or first the asking hook's `resume` with `answer`, or
 * that point's deny with `deny` as the reason. Tool points keep it as their call's `askResponse`.
 */
export interface HookResume {
  point: HookPointName;
  hook: string;
  from: number;
  subject: string;
  /** JSON text of the answer to the hook's question or form, for its `resume`. */
  answer?: string;
  /** The reviewer rejected: the point's deny, with this reason. */
  deny?: string;
}

/** One tool call of the current step. */
export interface StepCall {
  toolCallId: string;
  toolName: string;
  /**
   * queued: not run yet; approved: run after approval; pending: waits for a human (here or in its
   * sub-agent); resuming: its sub-agent got its answers and goes on when the step runs; done: has its result.
   */
  status: 'queued' | 'approved' | 'pending' | 'resuming' | 'done';
  result?: string;
  interaction?: StoredInteraction;
  /** Approved calls: the input to run, as JSON text (edited by the human or as the model sent it). */
  approvedInput?: string;
  edited?: boolean;
  /** Calls that asked (`ctx.ask`): the human's response, JSON text, for the tool's `resume`. */
  askResponse?: string;
  /** Sub-agent calls: the paused child's machine state (its own transcript, not a copy of ours). */
  child?: ChildState;
  /**
   * Set (with `schemaHash`) in the head before a function tool's `execute` starts, in store mode
   * (DESIGN §21): a call taken over with this set and no result is in doubt.
   */
  started?: boolean;
  /**
   * The hash of the tool's input schema when the call started running (in-flight calls; pending
   * ones keep it on their interaction). A resume under another hash re-validates the call's input.
   */
  schemaHash?: string;
  /**
   * Set when sessions found this call started and without a result (DESIGN §21): on a takeover, a
   * retry, a message, or a stop of a run whose worker died (`true`: its tool's `onInDoubt`
   * applies), or in a fork (`'fork'`: it may have run in the source run, under another idempotency
   * key, so the fork always asks, whatever the tool's policy).
   */
  inDoubt?: boolean | 'fork';
}

/** The machine state of a paused sub-agent, kept inside its parent's step. */
export interface ChildState {
  value: LoopStateName;
  context: LoopContext;
}

/** A sub-agent paused under the `parent` policy, waiting for the parent model's `answer_subagent`. */
export interface ParkedChild {
  /** Unique per child: the prefix of its interaction ids. */
  key: string;
  /** The agent tool that started it, and the call. */
  toolName: string;
  toolCallId: string;
  state: ChildState;
}

/** The small record kept per resolved interaction (audit, and idempotent repeated answers). */
export interface ResolvedRecord {
  id: string;
  toolCallId: string;
  kind: InteractionKind;
  resolution: ResolutionKind;
  at: string;
  answers?: NormalizedAnswer[];
  /** Questions: as asked, so a repeated answer can be normalised after the call is gone. */
  questions?: Question[];
  /** JSON text of the human's edited approval input. */
  editedInput?: string;
  /** Input forms: JSON text of the value given. */
  value?: string;
  rationale?: string;
  /** Who responded (`TurnOptions.principal`), when known. */
  principal?: string;
  /** Approvals with a quorum: every approval that counted, the deciding one last. */
  approvals?: ApprovalRecord[];
  /** Budget interactions approved with an extension: what was added to the limits. */
  extend?: BudgetLimits;
  /**
   * What the human's span needs (DESIGN §15), kept only when the run is traced and the resolution
   * comes before the span of the turn that goes on from it (a resume): whichever process plays that
   * turn — a background worker's included — reports the span from here.
   */
  span?: ResolvedSpan;
}

/** A resolved interaction's span, reported by the turn `turn` of the top run when its span opens. */
export interface ResolvedSpan {
  /** The top run's turn that goes on from the resolution. */
  turn: number;
  /** The interaction's `createdAt`, for the wait. */
  askedAt: string;
  /** The tool that asked, or whose call waited for approval. */
  toolName: string;
  /** The agent whose call asked, when it is not the top run's (a sub-agent's bubbled interaction). */
  agent?: string;
}

/** Everything the loop knows; the bulk of a snapshot. */
export interface LoopContext {
  messages: ChatMessage[];
  /** The calls of the last assistant message until their results are appended. */
  step: StepCall[] | null;
  resolved: ResolvedRecord[];
  /** Interactions created in this run (for unique ids). */
  interactionCount: number;
  /** Model calls in this turn, and the budget. */
  modelCalls: number;
  maxSteps: number;
  output: string | null;
  error: { code: string; message: string } | null;
  /** Sub-agents paused under the `parent` policy (absent when none). */
  parked?: ParkedChild[];
  /** What the run has spent, across turns (absent until it spends anything). */
  spent?: Spend;
  /** What budget interactions approved with `extend` added to the limits, in total. */
  extended?: BudgetLimits;
  /** The budget interaction the run waits on before its next model call or step (DESIGN §20). */
  budgetPause?: StoredInteraction;
  /**
   * Set by the first compaction of the history (DESIGN §22): `messages` are `summary` messages not in
   * the full transcript (a compaction's summary, the system messages it kept), then the full
   * transcript from its entry `from` on. Absent: `messages` are the whole transcript.
   */
  window?: HistoryWindow;
  /**
   * Messages a user sent while calls of the open step were in doubt (DESIGN §21): those calls are
   * settled first (their tool's `onInDoubt`), then these join the transcript after their results.
   */
  held?: ChatMessage[];
  /** A model point's hooks go on from here on the next model call (DESIGN §26). */
  hookResume?: HookResume;
  /** Approvals remembered for the run (`remember: 'run'`, DESIGN §26): their keys. */
  remembered?: string[];
}

/** Where a compacted transcript's window starts: see {@link LoopContext.window}. */
export interface HistoryWindow {
  /** The index in the full transcript (every message the run ever had, no summary) of the first message after the summary. */
  from: number;
  /** How many messages at the start of `messages` are not in the full transcript. */
  summary: number;
}

/** What a tool call came to when the step ran: a result, or an interaction to wait for. */
export type StepOutcome = { toolCallId: string } & (
  | CallResult
  | { interaction: StoredInteraction }
  /** A tool point's hooks go on when the step runs again (a hook failed after the tool ran). */
  | { resume: StoredInteraction; askResponse: string }
);

/** How the parked sub-agents change: `entry` null removes the child under `key`. */
export interface ParkUpdate {
  key: string;
  entry: ParkedChild | null;
}

/** What a call that ran came to: a result (maybe parking or unparking a sub-agent), or a paused sub-agent. */
export type CallResult = { result: string; park?: ParkUpdate } | { child: ChildState };

/** A human's decision on one pending call, prepared (validated and formatted) by the interpreter. */
export interface Resolution {
  toolCallId: string;
  /** Records to keep: the interaction's own, or those of sub-agent interactions routed through this call. */
  records: ResolvedRecord[];
  /** The tool result, when the decision settles the call (answers, rejection, cancel, timeout). */
  result?: string;
  /** Approvals: the input to run (JSON text). */
  runInput?: string;
  edited?: boolean;
  /** Sub-agent calls: the child's state after it took the responses. */
  child?: ChildState;
  /** Calls that asked (`ctx.ask`): the response for the tool's `resume`, as JSON text. */
  askResponse?: string;
  /** An approval short of its quorum: recorded, and the call stays pending. */
  approval?: ApprovalRecord;
  /** The budget interaction's decision: go on (with `extend` added to the limits), or stop. */
  budget?: { decision: 'extend'; extend?: BudgetLimits } | { decision: 'refuse' };
  /** A model point's review, decided: where its hooks go on (DESIGN §26). */
  hookResume?: HookResume;
  /** An approval given with `remember: 'run'`: the key later calls pass under. */
  remember?: string;
}

/** Events the interpreter sends. */
export type LoopEvent =
  | { type: 'START'; messages: ChatMessage[]; maxSteps: number }
  | { type: 'MODEL_RESPONDED'; message: AssistantMessage }
  /** A final answer the agent's `output` schema refused: kept, with the feedback the model reads next. */
  | { type: 'OUTPUT_REJECTED'; message: AssistantMessage; feedback: ChatMessage }
  | { type: 'MODEL_FAILED'; error: { code: string; message: string }; hookResume?: HookResume }
  /** A hook failed in a step (DESIGN §26): the other calls' outcomes are kept, the turn fails. */
  | { type: 'HOOK_FAILED'; outcomes: StepOutcome[]; error: { code: string; message: string } }
  /** A `beforeModel` hook denied the model call: the turn ends `blocked`. */
  | { type: 'BLOCKED'; error: { code: string; message: string } }
  | { type: 'TOOLS_SETTLED'; outcomes: StepOutcome[] }
  | { type: 'RESPOND'; resolutions: Resolution[]; maxSteps: number }
  /**
   * `results`: by call id, the result of an open call sessions found in doubt (it may have run), in
   * place of "dropped".
   */
  | {
      type: 'USER_MESSAGE';
      messages: ChatMessage[];
      maxSteps: number;
      at: string;
      results?: Record<string, string>;
    }
  | { type: 'RETRY'; maxSteps: number }
  /** The next model call or step would start past the run's budget: wait for a human's decision. */
  | { type: 'BUDGET_REACHED'; interaction: StoredInteraction }
  | { type: 'ABORT' };

/** Resting and working state names of {@link agentMachine}. */
export type LoopStateName =
  | 'idle'
  | 'callingModel'
  | 'executingTools'
  | 'settling'
  | 'waitingInput'
  | 'completed'
  | 'failed'
  | 'maxSteps'
  | 'aborted'
  | 'budgetExceeded'
  | 'blocked';
