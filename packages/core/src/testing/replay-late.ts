/**
 * Late input in a replay (DESIGN §30 × §28): a turn during which queued messages were delivered is
 * played with a fence of its own — the hook sessions use to add them — that adds each recorded
 * message right before the model call it preceded. The fence holds always and writes nothing.
 */
import {
  applyResolutions,
  beginTurn,
  continueTurn,
  emit,
  type Fence,
  loadRun,
  newRun,
  prepareResolutions,
  type Run,
  send,
  sendUserMessage,
} from '../interpreter/index.js';
import type { Agent } from '../tools/index.js';
import type { InteractionResponse, TurnOptions, TurnResult } from '../types.js';
import type { RecordedLateInput, RecordedTurn } from './recording-format.js';

/** A fence that delivers `late` at the recorded model calls of the turn (counted as the loop calls it). */
function lateFence(late: readonly RecordedLateInput[]): Fence {
  let step = 0;
  return {
    holds: async () => true,
    record: async () => {},
    lateInput(run: Run) {
      step++;
      const due = late.filter((entry) => entry.step === step);
      if (due.length === 0) return;
      const { value, context } = run.state;
      const messages = due.flatMap((entry) => entry.messages);
      run.state = { value, context: { ...context, messages: [...context.messages, ...messages] } };
      for (const entry of due) {
        emit(run, { type: 'message_delivered', messageId: entry.messageId ?? '', messages: entry.messages });
      }
    },
  };
}

/** Where a late-input turn starts: a new run, a snapshot and its input, or a snapshot and the responses. */
export type LateStart =
  | { runId: string; context?: unknown }
  | { snapshot: string; responses: InteractionResponse[] }
  | { snapshot: string };

/**
 * Plays `recorded` (an `input` or `respond` turn with late input) as `runTurn` or `respond` would,
 * with the fence that delivers its late input.
 */
export function playLate<TOutput>(
  agent: Agent<TOutput>,
  recorded: RecordedTurn,
  start: LateStart,
  options: TurnOptions,
): Promise<TurnResult<TOutput>> {
  let run: Run;
  if ('runId' in start) {
    run = newRun(agent, start.runId, start.context, options);
    beginTurn(run, 'input', recorded.input);
    send(run, { type: 'START', messages: recorded.input ?? [], maxSteps: agent.maxSteps });
  } else if ('responses' in start) {
    run = loadRun(agent, start.snapshot, options, undefined, 'assignee');
    const prepared = prepareResolutions(run, start.responses);
    beginTurn(run, 'respond');
    applyResolutions(run, prepared);
  } else {
    run = loadRun(agent, start.snapshot, options);
    beginTurn(run, 'input', recorded.input);
    sendUserMessage(run, recorded.input ?? []);
  }
  run.fence = lateFence(recorded.late ?? []);
  return continueTurn<TOutput>(run);
}
