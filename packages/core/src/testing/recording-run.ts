/**
 * A recording from a run's state (a snapshot, or a stored run with its full transcript): the
 * transcript gives the inputs, model responses and tool results; the record kept per resolved
 * interaction gives each response and who gave it. Turn boundaries are inferred: a turn starts at
 * each user message and at each group of responses given together (same time, same principal).
 */
import { statusOf } from '../interpreter/index.js';
import type { ResolvedRecord } from '../machine/index.js';
import type { DecodedSnapshot } from '../snapshot/index.js';
import type { AssistantMessage, ChatMessage } from '../types.js';
import {
  decisionOf,
  foldInDoubt,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordedLateInput,
  type RecordedTrigger,
  type RecordedTurn,
  type Recording,
  topSteps,
  transferredTo,
} from './recording-format.js';

/** `parent/child@call_1:2` → `['parent', 'child']`. */
function pathOfId(id: string): string[] {
  return id
    .replace(/:[^/]*$/, '')
    .split('/')
    .map((part) => part.replace(/@.*$/, ''));
}

/** Builds the turns of a run from its transcript and resolved records. */
class TurnBuilder {
  readonly turns: RecordedTurn[] = [];
  private at: string;

  constructor(firstAt: string) {
    this.at = firstAt;
  }

  get current(): RecordedTurn | undefined {
    return this.turns.at(-1);
  }

  open(trigger: RecordedTrigger, at: string = this.at, principal?: string): RecordedTurn {
    const previous = this.current;
    // A turn that paused says so already; any other ended before the next began (a snapshot does not
    // say how: completed is the usual way, and replay compares pauses, not statuses).
    if (previous && previous.status === 'running') previous.status = 'completed';
    this.at = at;
    const turn: RecordedTurn = {
      turn: this.turns.length + 1,
      trigger,
      at,
      steps: [],
      results: [],
      asked: [],
      status: 'running',
      ...(principal !== undefined ? { principal } : {}),
    };
    this.turns.push(turn);
    return turn;
  }

  /** The pause on a step's records (the step of agent `player`), then the turns that answered them. */
  pause(message: AssistantMessage, records: ResolvedRecord[], player: string): void {
    const turn = this.current!;
    for (const record of records) {
      const call = message.tool_calls?.find((item) => item.id === record.toolCallId);
      turn.asked.push({
        id: record.id,
        kind: record.kind,
        toolCallId: record.toolCallId,
        toolName: call?.function.name ?? '',
        agentPath: call ? [player] : pathOfId(record.id),
        ...(record.questions ? { payload: { questions: record.questions } } : {}),
      });
    }
    turn.status = 'needs_input';
    let group: RecordedTurn | undefined;
    for (const record of records) {
      const decision = decisionOf({
        ...record,
        editedInput: record.editedInput === undefined ? undefined : JSON.parse(record.editedInput),
        value: record.value === undefined ? undefined : JSON.parse(record.value),
      });
      if (record.resolution === 'superseded') continue;
      if (!decision) {
        if (group?.trigger !== 'expire' || group.at !== record.at) group = this.open('expire', record.at);
        continue;
      }
      // Approvals towards a quorum came one call (one principal) each, before the deciding one.
      for (const approval of (record.approvals ?? []).slice(0, -1)) {
        this.open('respond', approval.at, approval.principal).responses = [
          {
            interactionId: record.id,
            toolCallId: record.toolCallId,
            kind: record.kind,
            agentPath: pathOfId(record.id),
            principal: approval.principal,
            response: {
              type: 'approve',
              ...(approval.rationale !== undefined ? { rationale: approval.rationale } : {}),
            },
          },
        ];
        group = undefined;
      }
      if (group?.trigger !== 'respond' || group.at !== record.at || group.principal !== record.principal) {
        group = this.open('respond', record.at, record.principal);
      }
      group.responses = [
        ...(group.responses ?? []),
        {
          interactionId: record.id,
          toolCallId: record.toolCallId,
          kind: record.kind,
          agentPath: pathOfId(record.id),
          ...(record.principal !== undefined ? { principal: record.principal } : {}),
          response: decision,
        },
      ];
    }
  }
}

/**
 * The recording of a run's state. `messages` is the transcript to read (the full one a store keeps,
 * or the snapshot's); with `window`, a compacted snapshot's summary messages are skipped and the
 * missing start is listed in `gaps`.
 */
export function recordingOfRun(
  decoded: DecodedSnapshot,
  messages: ChatMessage[],
  options: { window: boolean },
): Recording {
  const { context } = decoded.state;
  const gaps: string[] = [];
  let transcript = messages;
  if (options.window && context.window) {
    transcript = messages.slice(context.window.summary);
    gaps.push(
      'The run was compacted: a snapshot holds only its recent messages. Record it with sessions.recording(runId) or from its event log.',
    );
  }
  const callIds = new Set(
    transcript.flatMap((message) =>
      (message.role === 'assistant' ? (message.tool_calls ?? []) : []).map((call) => call.id),
    ),
  );
  const records = context.resolved;
  const builder = new TurnBuilder(records[0]?.at ?? decoded.createdAt);
  const names = new Map<string, string>();
  // The agent playing (DESIGN §27): the root, then each agent a transfer result names, from the next step.
  let player = decoded.agent;
  let handedTo: string | undefined;
  let cursor = 0;
  let previous: ChatMessage | undefined;
  // Calls a new message superseded: the user message after their results starts a turn.
  const superseded = new Set(
    records.filter((record) => record.resolution === 'superseded').map((record) => record.toolCallId),
  );
  let late: RecordedLateInput | undefined;
  for (const message of transcript) {
    const turn = builder.current;
    if (message.role === 'user' && late && previous?.role === 'user') {
      late.messages.push(message);
    } else if (
      message.role === 'user' &&
      turn &&
      previous?.role === 'tool' &&
      !superseded.has(previous.tool_call_id)
    ) {
      // After a settled step, not a new message superseding it: delivered as the turn went on (DESIGN §30).
      late = { step: topSteps(turn) + 1, messages: [message] };
      turn.late = [...(turn.late ?? []), late];
    } else if (message.role === 'user') {
      late = undefined;
      if (turn && previous?.role === 'user' && turn.trigger === 'input') turn.input!.push(message);
      else builder.open('input').input = [message];
    } else if (message.role === 'assistant') {
      late = undefined;
      if (!builder.current) builder.open('input');
      player = handedTo ?? player;
      handedTo = undefined;
      builder.current!.steps.push({ agentPath: [player], message });
      const ids = new Set((message.tool_calls ?? []).map((call) => call.id));
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
      // This step's records, and the sub-agent records resolved among them (their calls are the child's).
      let last = -1;
      for (let index = cursor; index < records.length; index++) {
        if (ids.has(records[index]!.toolCallId)) last = index;
        else if (callIds.has(records[index]!.toolCallId)) break;
      }
      if (last >= cursor) {
        const stepRecords = records.slice(cursor, last + 1);
        cursor = last + 1;
        if (stepRecords.some((record) => !ids.has(record.toolCallId))) {
          gaps.push(
            'A snapshot keeps no finished sub-agent conversation: record runs with sub-agents from their event log.',
          );
        }
        builder.pause(message, stepRecords, player);
      }
    } else if (message.role === 'tool') {
      const turn = builder.current;
      turn?.results.push({
        toolCallId: message.tool_call_id,
        toolName: names.get(message.tool_call_id) ?? '',
        agentPath: [player],
        result: message.content,
      });
      const to = handedTo === undefined ? transferredTo(message.content) : undefined;
      if (turn && to !== undefined) {
        handedTo = to;
        turn.handoffs = [...(turn.handoffs ?? []), { from: player, to }];
      }
    }
    previous = message;
  }
  const last = builder.current;
  if (last) last.status = statusOf(decoded.state.value);
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    agent: decoded.agent,
    agentVersion: decoded.agentVersion,
    runId: decoded.runId,
    source: 'snapshot',
    ...(decoded.principal !== undefined ? { principal: decoded.principal } : {}),
    turns: foldInDoubt(builder.turns),
    ...(gaps.length > 0 ? { gaps: [...new Set(gaps)] } : {}),
  };
}
