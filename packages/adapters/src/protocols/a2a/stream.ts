/**
 * `message/stream` and `tasks/resubscribe` as A2A stream events: the task first, a `working`
 * status each time the model has spoken, and at the end the run's outcome — the `output` artifact
 * then `completed`, or `input-required` with the pending interactions, `failed`, `canceled`.
 * Progress waits for a slow reader only up to the handler's `maxQueuedBytes` (later progress is
 * dropped, the outcome never is), and a caller that leaves the stream never stops the turn.
 */
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { AgentEvent, TurnResult } from '@turnkit/core';
import { agentMessage, outputArtifact, taskStatus, textPart } from './tasks.js';

const statusUpdate = (task: Pick<Task, 'id'>, status: ReturnType<typeof taskStatus>): StreamResponse => ({
  payload: {
    $case: 'statusUpdate',
    value: { taskId: task.id, contextId: task.id, status, metadata: undefined },
  },
});

/** The task as the stream's first event. */
export const taskEvent = (task: Task): StreamResponse => ({ payload: { $case: 'task', value: task } });

/** The `working` task a stream starts with, before its turn has a result. */
export function workingTask(runId: string): Task {
  return {
    id: runId,
    contextId: runId,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** The events that end a stream: the output artifact of a completed run, then its final status. */
export function outcomeEvents(run: TurnResult<unknown>): StreamResponse[] {
  const events: StreamResponse[] = [];
  if (run.status === 'completed') {
    events.push({
      payload: {
        $case: 'artifactUpdate',
        value: {
          taskId: run.runId,
          contextId: run.runId,
          artifact: outputArtifact(run),
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      },
    });
  }
  events.push(statusUpdate({ id: run.runId }, taskStatus(run)));
  return events;
}

/** A `working` status carrying what the model just said, when it said something. */
function progress(runId: string, event: AgentEvent): StreamResponse | undefined {
  if (event.type !== 'model_finished' || event.agentPath.length > 1) return undefined;
  const text = event.message.content;
  if (!text) return undefined;
  const message = agentMessage({ runId }, `progress:${event.seq}`, [textPart(text)]);
  return statusUpdate(
    { id: runId },
    { state: TaskState.TASK_STATE_WORKING, message, timestamp: new Date().toISOString() },
  );
}

/**
 * Plays a turn and yields its stream: `first` (the task as the stream opens), progress while the
 * turn plays (at most `maxQueuedBytes` of it waiting for the reader), then its outcome. `play` gets
 * the `onEvent` to hand the turn.
 */
export async function* playStream(
  runId: string,
  first: Task,
  play: (onEvent: (event: AgentEvent) => void) => Promise<TurnResult<unknown>>,
  maxQueuedBytes: number,
): AsyncGenerator<StreamResponse, void, undefined> {
  const queued: { update: StreamResponse; bytes: number }[] = [];
  let queuedBytes = 0;
  let wake: (() => void) | undefined;
  let settled: { run: TurnResult<unknown> } | { error: unknown } | undefined;
  const turn = play((event) => {
    const update = progress(runId, event);
    if (!update) return;
    const bytes = event.type === 'model_finished' ? (event.message.content?.length ?? 0) : 0;
    if (queuedBytes + bytes > maxQueuedBytes) return;
    queuedBytes += bytes;
    queued.push({ update, bytes });
    wake?.();
  }).then(
    (run) => {
      settled = { run };
    },
    (error: unknown) => {
      settled = { error };
    },
  );
  void turn.finally(() => wake?.());
  yield taskEvent(first);
  while (true) {
    const next = queued.shift();
    if (next) {
      queuedBytes -= next.bytes;
      yield next.update;
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  if ('error' in settled) throw settled.error;
  yield* outcomeEvents(settled.run);
}
