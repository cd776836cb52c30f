/**
 * One run in memory for the length of one call: the machine snapshot, the application context,
 * and what this call produced (events, usage). Built fresh from a snapshot string on every call and
 * written back to one at the end; nothing outlives the call.
 */
import { randomBytes } from 'node:crypto';
import { type AnyActorScope, createActor, type SnapshotFrom } from 'xstate';
import type { Agent } from './agent.js';
import { deserializeContext, serializeContext } from './context.js';
import { SnapshotError, StateError } from './errors.js';
import {
  agentMachine,
  type LoopContext,
  type LoopEvent,
  type LoopStateName,
  pendingInteractions,
  type StoredInteraction,
} from './machine.js';
import {
  checkShape,
  type DecodedSnapshot,
  encodeSnapshot,
  readEnvelope,
  SNAPSHOT_VERSION,
} from './snapshot.js';
import type {
  AgentEvent,
  PendingInteraction,
  TurnOptions,
  TurnResult,
  TurnStatus,
  TurnUsage,
} from './types.js';

type MachineState = SnapshotFrom<typeof agentMachine>;

/** The working state of one call. */
export interface Run {
  agent: Agent;
  runId: string;
  agentPath: string[];
  /** Prefix of this agent's interaction ids: its name, or for a sub-agent its parent's prefix, name and call. */
  idPrefix: string;
  /** For a sub-agent: the run that called it (events go to the top run). */
  parent?: Run;
  turn: number;
  seq: number;
  state: MachineState;
  /** The application's context object (tools may change it in place). */
  context: unknown;
  lease?: { owner: string; expiresAt: string };
  options: TurnOptions;
  events: AgentEvent[];
  usage: TurnUsage;
}

let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/** A new run id: 128 random bits, URL-safe. Random bytes are drawn 4 KiB at a time (one syscall per 256 ids). */
export function newRunId(): string {
  if (randomOffset + 16 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomOffset = 0;
  }
  const bytes = randomPool.subarray(randomOffset, randomOffset + 16);
  randomOffset += 16;
  return `run_${bytes.toString('base64url')}`;
}

/** The call's clock: `options.now` when given, else the system clock. */
export function now(run: Run): Date {
  return run.options.now ?? new Date();
}

function emptyUsage(): TurnUsage {
  return { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 };
}

/** A run that has not started yet (state `idle`). */
export function newRun(agent: Agent, runId: string, context: unknown, options: TurnOptions): Run {
  return {
    agent,
    runId,
    agentPath: [agent.name],
    idPrefix: agent.name,
    turn: 0,
    seq: 0,
    state: agentMachine.resolveState({ value: 'idle', context: agentMachine.config.context as LoopContext }),
    context,
    options,
    events: [],
    usage: emptyUsage(),
  };
}

/** Decodes a snapshot for `agent`: signature → format/version → migration → shape → compatibility. */
export function decodeFor(agent: Agent, snapshot: string): DecodedSnapshot {
  let envelope: unknown = readEnvelope(snapshot, agent.snapshot?.secret);
  const written = (envelope as { agentVersion?: unknown }).agentVersion;
  if (agent.migrate && written !== agent.version) {
    envelope = agent.migrate(envelope as DecodedSnapshot);
  }
  const decoded = checkShape(envelope);
  if (decoded.agent !== agent.name) {
    throw new SnapshotError(
      'SNAPSHOT_INCOMPATIBLE',
      `This snapshot belongs to agent ${JSON.stringify(decoded.agent)}, not ${JSON.stringify(agent.name)}: resume it with the agent that wrote it.`,
    );
  }
  checkPendingTools(agent, decoded.state.context);
  return decoded;
}

/** A pending or approved call can only resume when its tool still exists with the same input schema. */
function checkPendingTools(agent: Agent, context: LoopContext): void {
  for (const parked of context.parked ?? []) checkChild(agent, parked.toolName, parked.state.context);
  for (const call of context.step ?? []) {
    if (call.child && call.status !== 'done') {
      checkChild(agent, call.toolName, call.child.context);
      continue;
    }
    if ((call.status !== 'pending' && call.status !== 'approved') || !call.interaction) continue;
    const tool = agent.toolIndex.get(call.toolName);
    if (!tool) {
      throw new SnapshotError(
        'SNAPSHOT_INCOMPATIBLE',
        `The run waits on a call of tool ${call.toolName}, which agent ${agent.name} no longer has: restore the tool, or send a new user message with the previous agent to move on.`,
      );
    }
    if (tool.schemaHash !== call.interaction.schemaHash) {
      throw new SnapshotError(
        'SNAPSHOT_INCOMPATIBLE',
        `The input schema of tool ${call.toolName} changed since the run paused on it: resume with the previous tool definition (or migrate the snapshot).`,
      );
    }
  }
}

function checkChild(agent: Agent, toolName: string, context: LoopContext): void {
  const tool = agent.toolIndex.get(toolName);
  if (tool?.kind !== 'function' || !tool.subagent) {
    throw new SnapshotError(
      'SNAPSHOT_INCOMPATIBLE',
      `The run holds a paused sub-agent started by tool ${toolName}, which agent ${agent.name} no longer has as an agent tool: restore it to resume.`,
    );
  }
  checkPendingTools(tool.subagent.agent, context);
}

/** Loads a run from a snapshot string. `context`, when given, replaces the stored one. */
export function loadRun(agent: Agent, snapshot: string, options: TurnOptions, context?: unknown): Run {
  const decoded = decodeFor(agent, snapshot);
  return {
    agent,
    runId: decoded.runId,
    agentPath: [agent.name],
    idPrefix: agent.name,
    turn: decoded.turn,
    seq: decoded.seq,
    state: agentMachine.resolveState(decoded.state),
    context: context !== undefined ? context : deserializeContext(decoded.context, agent.serializer),
    lease: decoded.lease,
    options,
    events: [],
    usage: emptyUsage(),
  };
}

/** Sends an event to the machine. */
export function send(run: Run, event: LoopEvent): void {
  run.state = agentMachine.transition(run.state, event, inertScope());
}

let scope: AnyActorScope | undefined;

/**
 * The actor scope for pure transitions, made once. xstate's `transition()` builds a new actor and
 * its initial snapshot on every call (about half of each step's cost); the machine only uses
 * `assign`, so one inert scope serves every transition.
 */
function inertScope(): AnyActorScope {
  if (!scope) {
    const self = createActor(agentMachine);
    const ignore = () => undefined;
    scope = {
      self,
      system: self.system,
      id: '',
      sessionId: '',
      defer: ignore,
      emit: ignore,
      logger: ignore,
      stopChild: ignore,
      actionExecutor: ignore,
    } as unknown as AnyActorScope;
  }
  return scope;
}

/** The run's state name. */
export function stateOf(run: Run): LoopStateName {
  return run.state.value as LoopStateName;
}

/** Public status of a state name. */
export function statusOf(value: LoopStateName): TurnStatus {
  switch (value) {
    case 'waitingInput':
      return 'needs_input';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'maxSteps':
      return 'max_steps';
    case 'aborted':
      return 'aborted';
    default:
      return 'running';
  }
}

/** The public form of a stored interaction. */
export function toPending(interaction: StoredInteraction): PendingInteraction {
  const { id, kind, toolCallId, toolName, agentPath, createdAt, expiresAt } = interaction;
  const payload =
    kind === 'question'
      ? { questions: interaction.questions ?? [] }
      : {
          toolName,
          input: JSON.parse(interaction.input ?? 'null') as unknown,
          ...(interaction.reason !== undefined ? { reason: interaction.reason } : {}),
        };
  return { id, kind, toolCallId, toolName, agentPath, createdAt, expiresAt, payload };
}

/** Interactions of the current step still waiting for a human, in call order (sub-agents' included). */
export const pendingOf = pendingInteractions;

/** Writes the run to a snapshot string. */
export function encodeRun(run: Run, lease?: { owner: string; expiresAt: string }): string {
  const decoded: DecodedSnapshot = {
    format: 'turnkit.snapshot',
    version: SNAPSHOT_VERSION,
    agent: run.agent.name,
    agentVersion: run.agent.version,
    runId: run.runId,
    turn: run.turn,
    seq: run.seq,
    createdAt: now(run).toISOString(),
    state: { value: stateOf(run), context: run.state.context },
    context: serializeContext(run.context, run.agent.serializer),
    ...(lease ? { lease } : {}),
  };
  return encodeSnapshot(decoded, run.agent.snapshot?.secret);
}

/** The TurnResult of a run and its snapshot string. `status` overrides (sessions report `running`). */
export function resultOf(
  run: Run,
  snapshot: string,
  status: TurnStatus = statusOf(stateOf(run)),
): TurnResult {
  const context = run.state.context;
  const pending = status === 'needs_input' ? pendingOf(context).map(toPending) : [];
  return {
    runId: run.runId,
    status,
    needsInput: status === 'needs_input',
    pendingQuestion: pending[0] ?? null,
    pending,
    output: status === 'completed' ? context.output : null,
    snapshot,
    messages: context.messages,
    events: run.events,
    usage: run.usage,
    error: status === 'failed' ? context.error : null,
  };
}

/** Throws NOT_WAITING with a message that says what state the run is in and what to do instead. */
export function notWaiting(run: Run, action: string): StateError {
  const status = statusOf(stateOf(run));
  const advice =
    status === 'completed'
      ? 'The run has completed: send the next user message with runTurn(agent, { snapshot, input }).'
      : status === 'running'
        ? 'The run is being worked on: load its latest snapshot and try again.'
        : 'Call runTurn(agent, { snapshot }) to retry it, or send a new user message.';
  return new StateError(
    'NOT_WAITING',
    `Cannot ${action}: the run is not waiting for input (status ${status}). ${advice}`,
  );
}
