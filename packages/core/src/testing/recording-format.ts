/**
 * The recording format (DESIGN §28), version 1: plain JSON types, the check that reads one, and
 * the answer form both builders record. Documented on the formats page (docs/architecture/formats.md).
 */
import { TurnkitError } from '../errors.js';
import type {
  AgentEvent,
  AssistantMessage,
  BudgetLimits,
  ChatMessage,
  InteractionKind,
  PendingInteraction,
  QuestionAnswer,
  ResolutionKind,
  TurnStatus,
} from '../types.js';

/** The `format` of every recording. */
export const RECORDING_FORMAT = 'turnkit.recording';
/** The recording format this release writes and reads. */
export const RECORDING_VERSION = 1;
/** What an event log writes in place of a redacted field (`jsonlEventLog({ redact })`, DESIGN §12). */
export const REDACTED = '[redacted]';

/** What started a recorded turn (as `turn_started` says). */
export type RecordedTrigger = 'input' | 'respond' | 'retry' | 'continue' | 'expire' | 'stop';

/** A run, recorded: see {@link recordingOf}. Plain JSON: write it with `JSON.stringify`, commit it. */
export interface Recording {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  /** The agent's name and `version` when the run was played. */
  agent: string;
  /** Null when the source does not say (an event log recorded without `agentVersion`). */
  agentVersion: string | null;
  runId: string;
  /** What it was made from: an event log (complete) or a snapshot or stored run (see `gaps`). */
  source: 'events' | 'snapshot';
  /** Who started the run, when known: the requester of four-eyes approvals. */
  principal?: string;
  /** Every turn, in order. */
  turns: RecordedTurn[];
  /**
   * What the source did not hold, said once each (e.g. a finished sub-agent's conversation, which a
   * snapshot does not keep). Replay reports `missing` where it needs one of them.
   */
  gaps?: string[];
  /** Room for later sections (handoffs, hooks): kept as written, not read by this replay. */
  extensions?: Record<string, unknown>;
}

/** One turn (one call of `runTurn`, `respond`, `expire`…) of a recording. */
export interface RecordedTurn {
  /** The turn's number in the run (1 first). */
  turn: number;
  trigger: RecordedTrigger;
  /** When it started (ISO 8601): replay plays it at this time, so expiries fall as they did. */
  at: string;
  /** Who made the call, when known (a `respond` turn: the responder). */
  principal?: string;
  /** An `input` turn: the messages it added. */
  input?: ChatMessage[];
  /** A `respond` (or `stop`) turn: the responses it applied, in order. */
  responses?: RecordedResponse[];
  /** Every model call of the turn, in order, the sub-agents' included. */
  steps: RecordedStep[];
  /** The result of every tool that ran in the turn, by call. */
  results: RecordedResult[];
  /** The interactions the turn asked for. */
  asked: RecordedAsk[];
  /**
   * An `input` turn played from messages queued with `sessions.send(…, { mode: 'queue' })` while
   * the run rested (DESIGN §30): their ids; `input` holds their messages.
   */
  queued?: string[];
  /** Messages queued while the turn played, each delivered before one of its model calls (DESIGN §30). */
  late?: RecordedLateInput[];
  /**
   * The handoffs of the turn (DESIGN §27), in order; absent when it made none. Each step's
   * `agentPath` starts with the agent that played it: the root, or the agent handed to.
   */
  handoffs?: RecordedHandoff[];
  /** How the turn ended. */
  status: TurnStatus;
}

/** Late input (DESIGN §30): messages added to the transcript right before the turn's model call `step`. */
export interface RecordedLateInput {
  /** The queued message's id (absent when recorded from a snapshot, which does not keep it). */
  messageId?: string;
  /** The model call of the turn it preceded (1 first), counting the calls of the agent that plays the run. */
  step: number;
  messages: ChatMessage[];
}

/** The model calls of a turn made by the agent playing the run (sub-agents' not counted). */
export function topSteps(turn: RecordedTurn): number {
  return turn.steps.filter((step) => step.agentPath.length === 1).length;
}

/** A handoff a turn made: the agent that called the transfer tool, and the agent it named. */
export interface RecordedHandoff {
  from: string;
  to: string;
}

/** One model call: the response (text and tool calls, in order), or the error it failed with. */
export interface RecordedStep {
  agentPath: string[];
  message?: AssistantMessage;
  error?: { code: string; message: string };
}

/** What one tool call came to, as the model read it. */
export interface RecordedResult {
  toolCallId: string;
  toolName: string;
  agentPath: string[];
  result: string;
}

/** An interaction a turn asked for. */
export interface RecordedAsk {
  id: string;
  kind: InteractionKind;
  toolCallId: string;
  toolName: string;
  agentPath: string[];
  /** The tool's own code asked (`ctx.ask`), rather than the loop (a question tool, an approval rule). */
  askedByTool?: true;
  /** What was asked (absent when the source does not hold it). */
  payload?: PendingInteraction['payload'];
  assignees?: string[];
  quorum?: number;
  allowRequester?: boolean;
}

/** A human's response, as replay gives it again (the generic `respond` form, without the id). */
export type RecordedDecision =
  | { type: 'answer'; answers: Record<string, QuestionAnswer> }
  | { type: 'approve'; rationale?: string; editedInput?: unknown; extend?: BudgetLimits }
  | { type: 'reject'; rationale?: string }
  | { type: 'cancel'; reason?: string }
  | { type: 'input'; value: unknown };

/** One human response at the interaction it answered, and who gave it. */
export interface RecordedResponse {
  interactionId: string;
  toolCallId: string;
  kind: InteractionKind;
  agentPath: string[];
  principal?: string;
  response: RecordedDecision;
}

/** The agent a transfer tool's result names (`{ ok: true, transferred_to }`, DESIGN §27), if it is one. */
export function transferredTo(result: string): string | undefined {
  if (!result.includes('"transferred_to"')) return undefined;
  try {
    const value = JSON.parse(result) as { ok?: unknown; transferred_to?: unknown };
    return value.ok === true && typeof value.transferred_to === 'string' ? value.transferred_to : undefined;
  } catch {
    return undefined;
  }
}

/** Normalised answers (by question id), back in the form `respond` takes. */
export function answersOf(
  answers: NonNullable<Extract<AgentEvent, { type: 'interaction_resolved' }>['answers']>,
): Record<string, QuestionAnswer> {
  const byQuestion: Record<string, QuestionAnswer> = {};
  for (const answer of answers) {
    if ('skipped' in answer) {
      byQuestion[answer.questionId] = { skipped: true };
      continue;
    }
    const { questionId, selected, other, note } = answer;
    // A free-text question refuses `selected`; a choice question takes `other` alone too.
    byQuestion[questionId] = {
      ...(selected.length > 0 ? { selected } : {}),
      ...(other !== undefined ? { other } : {}),
      ...(note !== undefined ? { note } : {}),
    } as QuestionAnswer;
  }
  return byQuestion;
}

/** What a resolution says (an `interaction_resolved` event, or a run's resolved record with its JSON parsed). */
export interface Resolved {
  resolution: ResolutionKind;
  rationale?: string | undefined;
  answers?: NonNullable<Extract<AgentEvent, { type: 'interaction_resolved' }>['answers']> | undefined;
  value?: unknown;
  editedInput?: unknown;
  extend?: BudgetLimits | undefined;
}

/** The response a human gave, as replay gives it again; null when none did (a timeout, a new message). */
export function decisionOf(resolved: Resolved): RecordedDecision | null {
  const rationale = resolved.rationale !== undefined ? { rationale: resolved.rationale } : {};
  switch (resolved.resolution) {
    case 'answered':
      if (resolved.answers) return { type: 'answer', answers: answersOf(resolved.answers) };
      return { type: 'input', value: resolved.value };
    case 'approved':
      return {
        type: 'approve',
        ...rationale,
        ...(resolved.editedInput !== undefined ? { editedInput: resolved.editedInput } : {}),
        ...(resolved.extend !== undefined ? { extend: resolved.extend } : {}),
      };
    case 'rejected':
      return { type: 'reject', ...rationale };
    case 'cancelled':
      return { type: 'cancel', ...(resolved.rationale !== undefined ? { reason: resolved.rationale } : {}) };
    default:
      return null;
  }
}

/**
 * A call in doubt (DESIGN §21: its worker died mid-tool) is a fact of the infrastructure, not of the
 * agent: its `in_doubt` ask, and the turn that answered it, fold into the turn that made the call, so
 * a replay plays the call once, with its recorded result, as one turn (which keeps its number).
 */
export function foldInDoubt(turns: RecordedTurn[]): RecordedTurn[] {
  const folded: RecordedTurn[] = [];
  for (const turn of turns) {
    const previous = folded.at(-1);
    const answersDoubt =
      (turn.responses ?? []).length > 0 && turn.responses!.every((item) => item.kind === 'in_doubt');
    if (previous && turn.trigger === 'respond' && answersDoubt) {
      const offset = topSteps(previous);
      for (const late of turn.late ?? []) {
        previous.late = [...(previous.late ?? []), { ...late, step: late.step + offset }];
      }
      previous.steps.push(...turn.steps);
      previous.results.push(...turn.results);
      previous.asked.push(...turn.asked);
      if (turn.handoffs) previous.handoffs = [...(previous.handoffs ?? []), ...turn.handoffs];
      previous.status = turn.status;
    } else {
      folded.push(turn);
    }
  }
  for (const turn of folded) turn.asked = turn.asked.filter((ask) => ask.kind !== 'in_doubt');
  return folded;
}

/**
 * Checks that `value` is a recording this release can replay (e.g. JSON read from a file) and
 * returns it; anything else is a `TurnkitError` `RECORDING_INVALID` saying what is wrong.
 */
export function readRecording(value: unknown): Recording {
  const record = value as Partial<Recording> | null;
  if (typeof record !== 'object' || record === null || record.format !== RECORDING_FORMAT) {
    throw new TurnkitError(
      'RECORDING_INVALID',
      `This is not a TurnKit recording (format "${RECORDING_FORMAT}"): make one with recordingOf(events | snapshot) or sessions.recording(runId).`,
    );
  }
  if (record.version !== RECORDING_VERSION) {
    throw new TurnkitError(
      'RECORDING_INVALID',
      `Recording version ${JSON.stringify(record.version)} is not supported: this release reads version ${RECORDING_VERSION}. Record the run again with this release.`,
    );
  }
  if (typeof record.agent !== 'string' || typeof record.runId !== 'string' || !Array.isArray(record.turns)) {
    throw new TurnkitError(
      'RECORDING_INVALID',
      'The recording lacks its agent, runId or turns: it was edited or cut short. Record the run again.',
    );
  }
  for (const [index, turn] of record.turns.entries()) {
    const problem = turnProblem(turn as Partial<RecordedTurn> | null);
    if (problem) {
      throw new TurnkitError(
        'RECORDING_INVALID',
        `The recording's turns[${index}] ${problem}: it was edited or cut short. Record the run again.`,
      );
    }
  }
  return record as Recording;
}

const TRIGGERS: readonly string[] = ['input', 'respond', 'retry', 'continue', 'expire', 'stop'];

/** What is wrong with one recorded turn, or undefined. */
function turnProblem(turn: Partial<RecordedTurn> | null): string | undefined {
  if (typeof turn !== 'object' || turn === null) return 'is not an object';
  if (!TRIGGERS.includes(turn.trigger as string)) return `has trigger ${JSON.stringify(turn.trigger)}`;
  if (typeof turn.at !== 'string' || Number.isNaN(Date.parse(turn.at))) return 'has no valid time (at)';
  for (const list of ['steps', 'results', 'asked'] as const) {
    if (!Array.isArray(turn[list])) return `has no ${list} list`;
  }
  if (turn.input !== undefined && !Array.isArray(turn.input))
    return 'has an input that is not a list of messages';
  if (turn.responses !== undefined && !Array.isArray(turn.responses))
    return 'has responses that are not a list';
  if (turn.handoffs !== undefined && !Array.isArray(turn.handoffs)) return 'has handoffs that are not a list';
  if (turn.late !== undefined && !Array.isArray(turn.late)) return 'has late input that is not a list';
  return undefined;
}
