/**
 * A TurnKit run as an A2A task (DESIGN §29): task id = run id, its state from the run's status, its
 * history from the transcript, a pause as `input-required` whose status message carries the pending
 * interactions twice — as a `DataPart` a program reads, and as text a model or a person reads — and
 * a completed run's output as the `output` artifact (a `DataPart` for a structured output).
 */
import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type Task,
  TaskState,
  type TaskStatus,
} from '@a2a-js/sdk';
import type { ChatMessage, PendingInteraction, TurnResult } from '@turnkit/core';
import { PENDING_KEY } from './wire.js';

/** The run statuses that end an A2A task (no message may continue it). */
const TERMINAL: Partial<Record<TurnResult<unknown>['status'], TaskState>> = {
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  max_steps: TaskState.TASK_STATE_FAILED,
  budget_exceeded: TaskState.TASK_STATE_FAILED,
  aborted: TaskState.TASK_STATE_CANCELED,
};

/** The task state of a run. */
export function taskState(run: Pick<TurnResult<unknown>, 'status'>): TaskState {
  if (run.status === 'needs_input') return TaskState.TASK_STATE_INPUT_REQUIRED;
  if (run.status === 'running') return TaskState.TASK_STATE_WORKING;
  return TERMINAL[run.status] ?? TaskState.TASK_STATE_FAILED;
}

/** Whether the run's task is over (completed, failed, canceled). */
export function isTerminal(run: Pick<TurnResult<unknown>, 'status'>): boolean {
  return TERMINAL[run.status] !== undefined;
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const dataPart = (data: unknown): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** An agent message of the task. */
export function agentMessage(run: Pick<TurnResult<unknown>, 'runId'>, id: string, parts: Part[]): Message {
  return {
    messageId: `${run.runId}:${id}`,
    contextId: run.runId,
    taskId: run.runId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a pending interaction is, for a caller: the `DataPart`'s entry (no internal fields). */
function pendingEntry(interaction: PendingInteraction) {
  return {
    id: interaction.id,
    kind: interaction.kind,
    toolName: interaction.toolName,
    agentPath: interaction.agentPath,
    expiresAt: interaction.expiresAt,
    payload: interaction.payload,
  };
}

/** One pending interaction as text: what is asked, and how to answer. */
function pendingText(interaction: PendingInteraction): string {
  const payload = interaction.payload as unknown as Record<string, unknown>;
  switch (interaction.kind) {
    case 'question': {
      const questions = (payload as { questions: PendingQuestion[] }).questions;
      return questions.map(questionText).join('\n');
    }
    case 'approval':
    case 'in_doubt': {
      const { toolName, input, reason } = payload as { toolName: string; input: unknown; reason?: string };
      const why = reason ? ` ${reason}` : '';
      return `Approve ${toolName} with ${JSON.stringify(input)}?${why} (answer with a DataPart { "type": "approve" } or { "type": "reject", "rationale": "…" })`;
    }
    case 'input': {
      const { message, schema } = payload as { message: string; schema: unknown };
      return `${message} (answer with a DataPart { "type": "input", "value": … } matching ${JSON.stringify(schema)})`;
    }
    default:
      return `The run's budget is spent: ${JSON.stringify(payload)} (answer with a DataPart { "type": "approve", "extend": {…} } or { "type": "reject" })`;
  }
}

type PendingQuestion = {
  header: string;
  question: string;
  options: { label: string; description: string }[];
};

function questionText(question: PendingQuestion): string {
  if (question.options.length === 0)
    return `${question.header}: ${question.question} (answer in your own words)`;
  const options = question.options.map(
    (option) => `- ${option.label}${option.description ? `: ${option.description}` : ''}`,
  );
  return `${question.header}: ${question.question}\n${options.join('\n')}\n(answer with an option's label, or in your own words)`;
}

/** The status message of a paused task: the pending interactions as text, then as a `DataPart`. */
export function pendingMessage(run: TurnResult<unknown>): Message {
  const text = run.pending.map(pendingText).join('\n\n');
  const data = { [PENDING_KEY]: run.pending.map(pendingEntry) };
  return agentMessage(run, `pending:${run.pending.map((item) => item.id).join(',')}`, [
    textPart(text),
    dataPart(data),
  ]);
}

/** The `output` artifact of a completed run: text, or a `DataPart` for a structured output. */
export function outputArtifact(run: TurnResult<unknown>): Artifact {
  const { output } = run;
  return {
    artifactId: 'output',
    name: 'output',
    description: '',
    parts: [typeof output === 'string' ? textPart(output) : dataPart(output)],
    metadata: undefined,
    extensions: [],
  };
}

/** The task's status: its state, and a message for a pause or a failure. */
export function taskStatus(run: TurnResult<unknown>, now: Date = new Date()): TaskStatus {
  const state = taskState(run);
  let message: Message | undefined;
  if (run.status === 'needs_input') message = pendingMessage(run);
  else if (run.error && state !== TaskState.TASK_STATE_COMPLETED) {
    message = agentMessage(run, `error:${run.messages.length}`, [textPart(run.error.message)]);
  }
  return { state, message, timestamp: now.toISOString() };
}

/** The transcript as A2A messages: user and assistant texts (tool calls and results stay inside). */
function history(run: TurnResult<unknown>, length: number | undefined): Message[] {
  const messages: Message[] = [];
  run.messages.forEach((message: ChatMessage, index) => {
    if (message.role !== 'user' && message.role !== 'assistant') return;
    if (!message.content) return;
    messages.push({
      ...agentMessage(run, `m${index}`, [textPart(message.content)]),
      role: message.role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
    });
  });
  if (length === undefined) return messages;
  return length <= 0 ? [] : messages.slice(-length);
}

/** The run as a task; `historyLength` as A2A defines it (none: all, 0: none, n: the last n). */
export function toTask(run: TurnResult<unknown>, historyLength?: number): Task {
  return {
    id: run.runId,
    contextId: run.runId,
    status: taskStatus(run),
    artifacts: run.status === 'completed' ? [outputArtifact(run)] : [],
    history: history(run, historyLength),
    metadata: undefined,
  };
}
