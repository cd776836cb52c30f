/**
 * One run in memory for the length of one call: the machine snapshot, the application context,
 * and what this call produced (events, usage). Built fresh from a snapshot string on every call and
 * written back to one at the end; nothing outlives the call.
 */

import { StateError, TurnkitError } from '../errors.js';
import { playingAgent, playingRoot } from '../handoffs/index.js';
import { TRACING } from '../keys.js';
import {
  initialState,
  type LoopContext,
  type LoopEvent,
  type LoopState,
  type LoopStateName,
  pendingInteractions,
  type Resolution,
  type ResolvedRecord,
  type StepCall,
  type StoredInteraction,
  transition,
} from '../machine/index.js';
import {
  type DecodedSnapshot,
  deserializeContext,
  encodeSnapshot,
  randomBytes,
  SNAPSHOT_VERSION,
  serializeContext,
  type TranscriptText,
  toBase64url,
} from '../snapshot/index.js';
import {
  type AnyAgent,
  type AnyFunctionTool,
  checkBudget,
  checkModelSettings,
  checkTelemetry,
  type InputFilter,
} from '../tools/index.js';
import type {
  AgentEvent,
  SpanOutcome,
  TelemetrySpan,
  ToolCall,
  TraceContext,
  TurnOptions,
  TurnUsage,
} from '../types.js';
import { decodeFor } from './decode.js';

/** The working state of one call. */
export interface Run {
  /**
   * The agent playing the run now ({@link playing}): the root, or after a handoff (DESIGN §27) the
   * agent it was handed to, with its transfer tools. The root stays in `handoff.root`.
   */
  agent: AnyAgent;
  /** Set once the run was handed off: the root (its snapshot keys, serializer, budget, telemetry) and the handoff that made `agent` play. */
  handoff?: { root: AnyAgent; from: string; inputFilter?: InputFilter };
  runId: string;
  agentPath: string[];
  /** Prefix of this agent's interaction ids: its name, or for a sub-agent its parent's prefix, name and call. */
  idPrefix: string;
  /** For a sub-agent: the run that called it (events go to the top run). */
  parent?: Run;
  turn: number;
  seq: number;
  /** The store row version recorded in the snapshot this run was loaded from (sessions check it). */
  row?: number;
  state: LoopState;
  /** The application's context object (tools may change it in place). */
  context: unknown;
  /** Who started the run (kept in the snapshot for the HTTP handler's checks). */
  principal?: string;
  /** The span context of the turn that last paused, for the next turn to link to. */
  trace?: TraceContext;
  /** Sessions: pending interaction ids already announced to `onInteraction` (DESIGN §20). */
  notified?: string[];
  /** Sessions: ids of answer links already used on this run (DESIGN §20). */
  usedLinks?: string[];
  /** For a fork (DESIGN §21): the run and stored version it was started from. */
  forkedFrom?: { runId: string; version: number };
  /** Set by sessions while they hold the run: no model or tool call starts once it stops holding. */
  fence?: Fence;
  /** Store mode's handling of tools in doubt (DESIGN §21), handed in by sessions (see in-doubt.ts). */
  doubt?: DoubtHandling;
  /** A sub-agent under the `choose` policy: its model is offered the question tools with `to`. */
  routed?: boolean;
  /** A sub-agent under the `reject` policy: only the top agent may ask the user. */
  questionsRejected?: boolean;
  /** A sub-agent of a parent whose policy is `single`: it too keeps at most one interaction pending. */
  single?: boolean;
  /** The transcript of the snapshot this run was loaded from, as text: the next snapshot reuses it. */
  transcript?: TranscriptText;
  /** What started the current turn (for its span). */
  trigger?: string;
  /** The span this run's model calls and tools go under (its turn, or for a sub-agent its own). */
  span?: TelemetrySpan;
  /** Open spans of the tool calls of the current step, by call id. */
  toolSpans?: Map<string, TelemetrySpan>;
  /** For a sub-agent: the span of the parent's tool call that started it. */
  parentSpan?: TelemetrySpan;
  /** Checks the context when each tool ends (made on first use, see context-guard.ts). */
  contextGuard?: { enter(): void; leave(): string | null };
  /** The final answer parsed with the agent's `output` schema in this call (so it is parsed once). */
  finalOutput?: { value: unknown };
  options: TurnOptions;
  events: AgentEvent[];
  usage: TurnUsage;
}

/**
 * Tools in doubt (DESIGN §21) as the loop sees them. Only store mode records calls started, so only
 * it can find a call in doubt: sessions hand this in (`IN_DOUBT`) on every run they load or play, and
 * a client-held program bundles none of it. Without it the loop records nothing started, and a
 * response to an `in_doubt` interaction is refused (a snapshot exported from a store that holds one
 * is resumed through sessions).
 */
export interface DoubtHandling {
  /** Records the call started before its code runs (a fenced write; see started.ts). */
  markStarted(run: Run, toolCallId: string, schemaHash: string): Promise<void>;
  /** Whether the call is in doubt and its tool's policy still has to be applied. */
  isInDoubt(stepCall: StepCall, tool: AnyFunctionTool): boolean;
  /** Applies the tool's `onInDoubt`: a result, an interaction to wait for, or run it again (undefined). */
  outcome(
    run: Run,
    tool: AnyFunctionTool,
    stepCall: StepCall,
    call: ToolCall,
  ): Promise<{ result: string } | { draft: Omit<StoredInteraction, InteractionPlace> } | undefined>;
  /**
   * The results a new user message gives the open calls that may have run (in doubt, or waiting on
   * an `in_doubt` ask), by call id; undefined when there are none.
   */
  superseded(context: LoopContext): Record<string, string> | undefined;
  /** A human's decision on an `in_doubt` interaction, or undefined for a response it cannot take. */
  decide(
    interaction: StoredInteraction,
    response: { type: string; value?: unknown; rationale?: string; reason?: string },
    at: string,
    principal?: string,
  ): Resolution | undefined;
}

/** What the loop fills in when it stores an interaction a tool drafted. */
type InteractionPlace = 'id' | 'agentPath' | 'createdAt' | 'toolCallId' | 'toolName';

/**
 * TurnKit's tracing (DESIGN §15), carried by a `telemetry` value (see telemetry.ts) so that a
 * program without telemetry bundles none of it. Each hook is a no-op where its span is not open.
 */
export interface Tracing {
  openRunSpan(run: Run): void;
  closeRunSpan(run: Run): void;
  /** Starts a model call's span; the returned function ends it. */
  modelSpan(run: Run, step: number): (outcome?: SpanOutcome) => void;
  startToolSpan(run: Run, toolCallId: string, toolName: string): void;
  endToolSpan(run: Run, toolCallId: string, outcome: SpanOutcome): void;
  endOpenToolSpans(run: Run): void;
  keepSpan(
    run: Run,
    interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>,
    record: ResolvedRecord,
  ): void;
  traceResolved(
    run: Run,
    interaction: Pick<StoredInteraction, 'createdAt' | 'toolName'>,
    record: ResolvedRecord,
  ): void;
}

/** Sessions' hold on the run (their lease, DESIGN §12), as the loop sees it. */
export interface Fence {
  /**
   * Whether the worker may start its next model or tool call. When no renewal was confirmed for a
   * whole lease, it asks the store once more before saying no: the store judges.
   */
  holds(): Promise<boolean>;
  /**
   * Writes the run as it stands (the results of the step that just ended), fenced by version and
   * owner, before the next model call: a worker that takes the run over resumes after those tools
   * instead of running them again. Called for the top run only.
   */
  record(run: Run): Promise<void>;
  /**
   * Late input (DESIGN §30): adds the messages queued on the run since the turn began to its
   * transcript, once each, right before a model call. Called for the top run only.
   */
  lateInput?(run: Run): void;
}

/**
 * TurnKit's tracing hooks, carried by the `telemetry` of the call or else of the top agent (DESIGN
 * §15); undefined when the run is not traced. A sub-agent is traced as its top run is.
 */
export function tracingOf(run: Run): Tracing | undefined {
  let top = run;
  while (top.parent) top = top.parent;
  return (top.options.telemetry ?? rootOf(top).telemetry)?.[TRACING] as Tracing | undefined;
}

let randomPool: Uint8Array = new Uint8Array(0);
let randomOffset = 0;

/** A new run id: 128 random bits, URL-safe. Random bytes are drawn 4 KiB at a time (one call per 256 ids). */
export function newRunId(): string {
  if (randomOffset + 16 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomOffset = 0;
  }
  const bytes = randomPool.subarray(randomOffset, randomOffset + 16);
  randomOffset += 16;
  return `run_${toBase64url(bytes)}`;
}

/** Where sessions keep how far the store's clock is from the host's (ms), in a run's options. */
const STORE_CLOCK_OFFSET = Symbol('turnkit.storeClockOffset');

/**
 * The options with the store's clock (`storeNow`, epoch ms, read just now) as the call's clock,
 * unless the caller passed `now` or the store gave none. Sub-agents inherit it with the options.
 */
export function withStoreClock(options: TurnOptions, storeNow: number | undefined): TurnOptions {
  if (options.now !== undefined || typeof storeNow !== 'number' || !Number.isFinite(storeNow)) return options;
  return { ...options, [STORE_CLOCK_OFFSET]: storeNow - Date.now() } as TurnOptions;
}

/** The call's clock: `options.now` when given, else the store's clock (sessions), else the system clock. */
export function now(run: Run): Date {
  return run.options.now ?? new Date(nowMs(run));
}

/** {@link now} in epoch milliseconds, without making a Date. */
function nowMs(run: Run): number {
  if (run.options.now) return run.options.now.getTime();
  const offset = (run.options as { [STORE_CLOCK_OFFSET]?: number })[STORE_CLOCK_OFFSET];
  return Date.now() + (offset ?? 0);
}

/** {@link now} as ISO text: what snapshots, interactions and records store. */
export function nowIso(run: Run): string {
  return isoTime(nowMs(run));
}

let lastTime = Number.NaN;
let lastIso = '';

/**
 * The ISO text of a time in ms, kept for the millisecond: a turn stamps its events, its
 * interactions, its records and its snapshot within one or two, and each `toISOString` cost as
 * much as a transition of the machine.
 */
export function isoTime(time: number): string {
  if (time !== lastTime) {
    lastTime = time;
    lastIso = new Date(time).toISOString();
  }
  return lastIso;
}

function emptyUsage(): TurnUsage {
  return { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 };
}

/** The machine's state before its first event. */
export function idleState(): LoopState {
  return initialState();
}

/** Refuses options no turn could use, before anything runs: a clock that is not a valid Date… */
function checkOptions(options: TurnOptions): TurnOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'The turn options must be an object ({ onEvent?, signal?, now? }).',
    );
  }
  const { now: clock, onEvent, signal } = options;
  if (clock !== undefined && !(clock instanceof Date && Number.isFinite(clock.getTime()))) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      '`now` must be a valid Date (or left out to use the system clock).',
    );
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', '`onEvent` must be a function.');
  }
  if (signal !== undefined && typeof (signal as AbortSignal | null)?.addEventListener !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', '`signal` must be an AbortSignal.');
  }
  if (
    options.principal !== undefined &&
    (typeof options.principal !== 'string' || options.principal === '')
  ) {
    throw new TurnkitError('CONFIG_INVALID', '`principal` must be a non-empty string.');
  }
  if (options.modelSettings !== undefined) checkModelSettings('The turn options', options.modelSettings);
  if (options.budget !== undefined) checkBudget('The turn options', options.budget);
  if (options.telemetry !== undefined) checkTelemetry('The turn options', options.telemetry);
  return options;
}

/**
 * The agent playing the run now (DESIGN §27): what the next model call and the step's tools, hooks,
 * instructions, output schema and model settings are read from.
 */
export function playing(run: Run): AnyAgent {
  return run.agent;
}

/** The agent the run was started with (and is resumed with): its snapshot keys, serializer, budget. */
export function rootOf(run: Run): AnyAgent {
  return run.handoff?.root ?? run.agent;
}

/** A run that has not started yet (state `idle`). */
export function newRun(agent: AnyAgent, runId: string, context: unknown, options: TurnOptions): Run {
  checkOptions(options);
  return {
    agent: playingRoot(agent),
    runId,
    agentPath: [agent.name],
    idPrefix: agent.name,
    turn: 0,
    seq: 0,
    state: idleState(),
    context,
    ...(options.principal !== undefined ? { principal: options.principal } : {}),
    options,
    events: [],
    usage: emptyUsage(),
  };
}

/**
 * Who may load a run: its `owner` (the principal that started it, or anyone when it has none), or
 * also — to see it and respond, DESIGN §20 — an `assignee` of an interaction it waits on.
 */
export type RunAccess = 'owner' | 'assignee';

/** Loads a run from a snapshot string. `context`, when given, replaces the stored one. */
export function loadRun(
  agent: AnyAgent,
  snapshot: string,
  options: TurnOptions,
  context?: unknown,
  access: RunAccess = 'owner',
): Run {
  checkOptions(options);
  const { decoded, transcript, active } = decodeFor(agent, snapshot);
  const foreign =
    options.principal !== undefined &&
    decoded.principal !== undefined &&
    decoded.principal !== options.principal;
  if (foreign && !(access === 'assignee' && assignedIn(decoded.state.context, options.principal!))) {
    throw new StateError(
      'RUN_NOT_FOUND',
      `No run with id ${JSON.stringify(decoded.runId)} is visible to this caller: start one, or use the caller that started it.`,
    );
  }
  const played = active?.agent ?? agent;
  return {
    agent: playingAgent(played),
    ...(active
      ? { handoff: activeHandoff(agent, decoded.activeAgent!.from, active.options.inputFilter) }
      : {}),
    runId: decoded.runId,
    agentPath: [played.name],
    idPrefix: played.name,
    turn: decoded.turn,
    seq: decoded.seq,
    ...(decoded.row !== undefined ? { row: decoded.row } : {}),
    state: { value: decoded.state.value, context: decoded.state.context },
    context: context !== undefined ? context : deserializeContext(decoded.context, agent.serializer),
    ...(decoded.principal !== undefined ? { principal: decoded.principal } : {}),
    ...(decoded.trace !== undefined ? { trace: decoded.trace } : {}),
    ...(decoded.notified !== undefined ? { notified: decoded.notified } : {}),
    ...(decoded.usedLinks !== undefined ? { usedLinks: decoded.usedLinks } : {}),
    ...(decoded.forkedFrom !== undefined ? { forkedFrom: decoded.forkedFrom } : {}),
    ...(transcript ? { transcript } : {}),
    options,
    events: [],
    usage: emptyUsage(),
  };
}

/** The `handoff` of a run played by another agent than its root `root`, handed over by `from`. */
export function activeHandoff(
  root: AnyAgent,
  from: string,
  inputFilter: InputFilter | undefined,
): NonNullable<Run['handoff']> {
  return inputFilter ? { root, from, inputFilter } : { root, from };
}

/** Whether `principal` is an assignee of something the run waits on (a sub-agent's included). */
function assignedIn(context: LoopContext, principal: string): boolean {
  return pendingInteractions(context).some((interaction) => interaction.assignees?.includes(principal));
}

/** Sends an event to the machine: it decides the next state (see machine/transition.ts). */
export function send(run: Run, event: LoopEvent): void {
  run.state = transition(run.state, event);
}

/** The run's state name. */
export function stateOf(run: Run): LoopStateName {
  return run.state.value;
}

/** Writes the run to a snapshot string (key order matters: the header comes first, see `readSnapshotHeader`). */
export function encodeRun(run: Run): string {
  return encodeSnapshot(decodedOf(run), rootOf(run).snapshot, run.transcript);
}

/** The run as a decoded snapshot, stamped with the call's clock: what {@link encodeRun} writes. */
export function decodedOf(run: Run): DecodedSnapshot {
  const root = rootOf(run);
  return {
    format: 'turnkit.snapshot',
    version: SNAPSHOT_VERSION,
    agent: root.name,
    agentVersion: root.version,
    runId: run.runId,
    turn: run.turn,
    seq: run.seq,
    createdAt: nowIso(run),
    ...(run.principal !== undefined ? { principal: run.principal } : {}),
    ...(run.trace !== undefined ? { trace: run.trace } : {}),
    ...(run.notified !== undefined ? { notified: run.notified } : {}),
    ...(run.usedLinks !== undefined ? { usedLinks: run.usedLinks } : {}),
    ...(run.forkedFrom !== undefined ? { forkedFrom: run.forkedFrom } : {}),
    ...(run.handoff ? { activeAgent: { name: run.agent.name, from: run.handoff.from } } : {}),
    state: { value: stateOf(run), context: run.state.context },
    context: serializeContext(run.context, root.serializer),
  };
}
