/**
 * A recording from a run's event log (DESIGN §9, §28): the log holds every turn's input, every
 * model response and tool result, every interaction asked and every response with its principal.
 */
import { TurnkitError } from '../errors.js';
import type { AgentEvent, ChatMessage, PendingInteraction, TurnStatus } from '../types.js';
import {
  decisionOf,
  foldInDoubt,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordedAsk,
  type RecordedResponse,
  type RecordedTurn,
  type Recording,
  topSteps,
} from './recording-format.js';

const ENDS: Partial<Record<AgentEvent['type'], TurnStatus>> = {
  turn_paused: 'needs_input',
  turn_completed: 'completed',
  turn_failed: 'failed',
  turn_aborted: 'aborted',
  turn_max_steps: 'max_steps',
  turn_budget_exceeded: 'budget_exceeded',
  turn_blocked: 'blocked',
};

/** What a turn asked, from its pending interaction: what replay needs to ask it again. */
function askOf(interaction: PendingInteraction): RecordedAsk {
  const { id, kind, toolCallId, toolName, agentPath, payload, assignees, quorum, allowRequester } =
    interaction;
  return {
    id,
    kind,
    toolCallId,
    toolName,
    agentPath,
    payload,
    ...(interaction.askedByTool ? { askedByTool: true as const } : {}),
    ...(assignees ? { assignees } : {}),
    ...(quorum !== undefined ? { quorum } : {}),
    ...(allowRequester !== undefined ? { allowRequester } : {}),
  };
}

/** The recording of one run's events (the first event's run unless `runId` is given). */
export function recordingOfEvents(
  all: AgentEvent[],
  options: { runId?: string | undefined; agentVersion?: string | undefined },
): Recording {
  const { runId } = options;
  const id = runId ?? all[0]?.runId;
  const events = all.filter((event) => event.runId === id).sort((a, b) => a.seq - b.seq);
  const first = events.find((event) => event.type === 'turn_started');
  if (id === undefined || first === undefined) {
    throw new TurnkitError(
      'RECORDING_INVALID',
      `recordingOf: the event log holds no turn${runId ? ` of run ${runId}` : ''}. Pass every event of a run (jsonlEventLog keeps them), not a filtered part.`,
    );
  }
  const turns: RecordedTurn[] = [];
  let turn: RecordedTurn | undefined;
  // A model call started and not finished when its turn failed: the recorded failure.
  const open = new Map<string, string[]>();
  for (const event of events) {
    if (event.type === 'turn_started') {
      turn = {
        turn: event.turn,
        trigger: event.trigger,
        at: event.at,
        steps: [],
        results: [],
        asked: [],
        status: 'running',
      };
      if (event.input) turn.input = event.input;
      turns.push(turn);
      continue;
    }
    if (!turn) continue;
    switch (event.type) {
      case 'model_started':
        open.set(event.agentPath.join('/'), event.agentPath);
        break;
      case 'model_finished':
        open.delete(event.agentPath.join('/'));
        turn.steps.push({ agentPath: event.agentPath, message: event.message });
        break;
      case 'tool_finished':
        if (event.result !== undefined) {
          const { toolCallId, toolName, agentPath, result } = event;
          turn.results.push({ toolCallId, toolName, agentPath, result });
        }
        break;
      case 'message_delivered':
        if (event.messages) deliver(turn, event.messageId, event.messages);
        break;
      case 'handoff':
        turn.handoffs = [...(turn.handoffs ?? []), { from: event.from, to: event.to }];
        break;
      case 'interaction_requested':
        turn.asked.push(askOf(event.interaction));
        break;
      case 'approval_recorded':
        addResponse(turn, {
          interactionId: event.interactionId,
          toolCallId: event.toolCallId,
          kind: 'approval',
          agentPath: event.agentPath,
          principal: event.principal,
          response: {
            type: 'approve',
            ...(event.rationale !== undefined ? { rationale: event.rationale } : {}),
          },
        });
        break;
      case 'interaction_resolved': {
        const response = turn.trigger === 'respond' || turn.trigger === 'stop' ? decisionOf(event) : null;
        if (!response) break;
        addResponse(turn, {
          interactionId: event.interactionId,
          toolCallId: event.toolCallId,
          kind: event.kind,
          agentPath: event.agentPath,
          ...(event.principal !== undefined ? { principal: event.principal } : {}),
          response,
        });
        break;
      }
      default: {
        const status = ENDS[event.type];
        if (!status) break;
        turn.status = status;
        if (event.type === 'turn_failed') {
          for (const agentPath of open.values()) turn.steps.push({ agentPath, error: event.error });
        }
        open.clear();
      }
    }
  }
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    agent: first.agentPath[0]!,
    // Events do not carry the agent's version: the caller may say it (`recordingOf` options).
    agentVersion: options.agentVersion ?? null,
    runId: id,
    source: 'events',
    turns: foldInDoubt(turns),
  };
}

/** Adds a response to its turn, and the turn's principal (the responder) when known. */
function addResponse(turn: RecordedTurn, response: RecordedResponse): void {
  turn.responses = [...(turn.responses ?? []), response];
  if (response.principal !== undefined) turn.principal = response.principal;
}

/**
 * A queued message delivered (DESIGN §30): before the turn's first model call of an `input` turn
 * with no input of its own, it is that turn's input (played from the queue); otherwise late input
 * before the turn's next model call.
 */
function deliver(turn: RecordedTurn, messageId: string, messages: ChatMessage[]): void {
  const step = topSteps(turn) + 1;
  if (turn.trigger === 'input' && step === 1 && (turn.input === undefined || turn.queued)) {
    turn.input = [...(turn.input ?? []), ...messages];
    turn.queued = [...(turn.queued ?? []), messageId];
    return;
  }
  turn.late = [...(turn.late ?? []), { messageId, step, messages }];
}
