/**
 * How replay judges a played turn against its recording (DESIGN §28): its pauses, the calls
 * today's tools refuse, its handoffs (§27), and a model call past the recorded ones.
 */
import { errorCodeOf } from '../results.js';
import type { AssistantMessage, TurnResult } from '../types.js';
import { type RecordedAsk, type RecordedTurn, transferredTo } from './recording-format.js';
import type { ReplayState } from './replay-agent.js';

/** Where a divergence is judged: the same agent, call and kind of interaction. */
type Asked = Pick<RecordedAsk, 'agentPath' | 'toolCallId' | 'kind' | 'toolName'>;
export const askKey = (ask: Asked) => `${ask.agentPath.join('/')}|${ask.toolCallId}|${ask.kind}`;
const describeAsk = (ask: Asked) => ({
  kind: ask.kind,
  toolName: ask.toolName,
  toolCallId: ask.toolCallId,
  agentPath: ask.agentPath,
});

/** Tool results that say today's tools refuse the call (DESIGN §21's drift, a schema that changed). */
const REFUSALS = new Set(['invalid_arguments', 'unknown_tool', 'tool_changed']);

/** The model call (1 first) of a turn whose response holds the call `toolCallId`; 0 if none does. */
function stepOf(messages: (AssistantMessage | undefined)[], toolCallId: string): number {
  return messages.findIndex((message) => message?.tool_calls?.some((call) => call.id === toolCallId)) + 1;
}

/** Compares a played turn with its recording: the pauses, and calls today's tools refuse. */
export function compareTurn(
  state: ReplayState,
  recorded: RecordedTurn,
  result: TurnResult<unknown>,
  recordedResults: Map<string, string>,
): void {
  const before = state.divergences.length;
  if (state.overrun && state.overrun.length > 1 && state.recording.source === 'snapshot') {
    // A sub-agent whose conversation the source did not keep (a stored run's finished child).
    const why = `the recording holds no response of sub-agent ${state.overrun.join('/')}: a snapshot or stored run keeps no finished sub-agent's conversation (record such runs from their event log)`;
    state.diverge('missing', why, undefined, { modelCall: state.overrun });
    return;
  }
  const today = result.events.flatMap((event) =>
    event.type === 'interaction_requested' ? [event.interaction] : [],
  );
  const todaySteps = result.events.flatMap((event) =>
    event.type === 'model_finished' ? [event.message] : [],
  );
  const recordedSteps = recorded.steps.map((step) => step.message);
  // Today's agent handed off otherwise: what the other agent did (its pauses) is a consequence.
  const handedOtherwise = compareHandoffs(state, recorded, result, recordedResults);
  const todayKeys = new Set(handedOtherwise ? [] : today.map(askKey));
  const recordedKeys = new Set(recorded.asked.map(askKey));
  for (const ask of handedOtherwise ? [] : recorded.asked) {
    if (todayKeys.has(askKey(ask))) continue;
    state.diverge(
      'pause',
      `the recording paused on ${ask.kind} for ${ask.toolName}; today's agent does not`,
      describeAsk(ask),
      { status: result.status },
      stepOf(recordedSteps, ask.toolCallId),
    );
  }
  for (const ask of handedOtherwise ? [] : today) {
    if (recordedKeys.has(askKey(ask))) continue;
    state.diverge(
      'pause',
      `today's agent pauses on ${ask.kind} for ${ask.toolName}; the recording did not`,
      { status: recorded.status },
      describeAsk(ask),
      stepOf(todaySteps, ask.toolCallId),
    );
  }
  // Calls of this turn's responses that today's tools refuse: at parse (a changed schema) or on resume (drift).
  const calls = new Map(
    todaySteps.flatMap((message) =>
      (message?.tool_calls ?? []).map((call) => [call.id, call.function.name] as const),
    ),
  );
  for (const message of result.messages) {
    if (message.role !== 'tool' || !calls.has(message.tool_call_id)) continue;
    const code = errorCodeOf(message.content);
    const was = recordedResults.get(message.tool_call_id);
    if (!code || !REFUSALS.has(code) || (was !== undefined && errorCodeOf(was) === code)) continue;
    const toolName = calls.get(message.tool_call_id)!;
    state.diverge(
      'tool_changed',
      `today's ${toolName} refuses the recorded call (${code})`,
      was,
      message.content,
      stepOf(todaySteps, message.tool_call_id),
    );
  }
  if (handedOtherwise) {
    state.left = true;
    state.stopped = true;
  }
  if (state.overrun && state.divergences.length === before) {
    state.diverge(
      'missing',
      `today's agent ${state.overrun.join('/')} calls its model where the recording has no response`,
      undefined,
      { status: result.status },
    );
  }
}

/**
 * The handoffs of a played turn against the recorded ones (DESIGN §27); true when they differ.
 * Today's agent hands off elsewhere or not at all: a `tool_call` divergence — unless today's tools
 * refuse the recorded transfer call (the agent it named is gone), which is reported `tool_changed`.
 */
function compareHandoffs(
  state: ReplayState,
  recorded: RecordedTurn,
  result: TurnResult<unknown>,
  recordedResults: Map<string, string>,
): boolean {
  const expected = recorded.handoffs ?? [];
  const actual = result.events.flatMap((event) =>
    event.type === 'handoff' ? [{ from: event.from, to: event.to }] : [],
  );
  if (JSON.stringify(expected) === JSON.stringify(actual)) return false;
  const refused = result.messages.some(
    (message) =>
      message.role === 'tool' &&
      REFUSALS.has(errorCodeOf(message.content) ?? '') &&
      transferredTo(recordedResults.get(message.tool_call_id) ?? '') !== undefined,
  );
  if (!refused) {
    state.diverge(
      'tool_call',
      'today’s agent hands the run to another agent, or to none, than the recording did',
      expected,
      actual,
    );
  }
  return true;
}
