/**
 * A remote task's `input-required` as a TurnKit ask, and the person's response as the message that
 * answers the remote task. A TurnKit remote says exactly what it waits for (its `pending` DataPart):
 * its questions are asked as they are (options included), its approvals as approvals, its forms as
 * forms, and the answer goes back as the DataPart its handler reads. Any other remote is asked as
 * one question from its status text — with options when a DataPart of its status offers
 * `options` (2 to 4), free text otherwise — and answered with text.
 */

import type { Task } from '@a2a-js/sdk';
import type { AskRequest, AskResponse, QuestionInput } from '@turnkit/core';
import { z } from 'zod';
import { statusData, statusText } from './remote.js';
import { A2aRemoteError, PENDING_KEY } from './wire.js';

/** What a paused call keeps in the snapshot: the remote task, and how to answer what it asks. */
export interface RemoteAskState {
  /** The remote task id: the answer is sent to it, from any process. */
  taskId: string;
  /** Which of the call's asks this is (1, 2, …): the answer's message id, the same if it is sent again. */
  round: number;
  /** How the answer is sent: a TurnKit DataPart (with the remote interaction's id), or text. */
  answer: { type: 'turnkit'; id: string; kind: 'question' | 'approval' | 'input' } | { type: 'text' };
}

type RemotePending = { id: string; kind: string; payload: Record<string, unknown> };

const MAX_QUESTION = 500;
const MAX_HEADER = 12;

/** The first pending interaction a TurnKit remote lists, if the task comes from one. */
function turnkitPending(task: Task): RemotePending | undefined {
  for (const value of statusData(task)) {
    const list = (value as Record<string, unknown> | null)?.[PENDING_KEY];
    if (Array.isArray(list) && list.length > 0) return list[0] as RemotePending;
  }
  return undefined;
}

type RemoteOption = { label: string; description?: string; preview?: string };
type RemoteQuestion = QuestionInput & { options?: RemoteOption[] };

/** An option as `ctx.ask` takes it: a plain label when the remote gave no description. */
const askOption = (option: RemoteOption): NonNullable<QuestionInput['options']>[number] =>
  option.description ? { ...option, description: option.description } : option.label;

/** A generic remote's choice: a DataPart `{ options: [...] }` of 2 to 4 labels (or `{ label, description }`). */
function offeredOptions(task: Task): QuestionInput['options'] {
  for (const value of statusData(task)) {
    const options = (value as { options?: unknown } | null)?.options;
    if (!Array.isArray(options) || options.length < 2 || options.length > 4) continue;
    const labels = options.map((option) =>
      typeof option === 'string'
        ? option
        : askOption({ label: String(option?.label ?? ''), description: String(option?.description ?? '') }),
    );
    if (labels.every((option) => (typeof option === 'string' ? option : option.label) !== '')) return labels;
  }
  return [];
}

/** The ask for a TurnKit remote's pending interaction. */
function turnkitAsk(pending: RemotePending, agentName: string): AskRequest {
  const { payload } = pending;
  if (pending.kind === 'question') {
    const questions = (payload.questions as RemoteQuestion[]).map((question) => ({
      ...question,
      options: (question.options ?? []).map(askOption),
    }));
    return { questions };
  }
  if (pending.kind === 'input') {
    const schema = z.fromJSONSchema(payload.schema as Parameters<typeof z.fromJSONSchema>[0]);
    return { input: { message: String(payload.message ?? ''), schema } };
  }
  const tool = typeof payload.toolName === 'string' ? ` ${payload.toolName}` : '';
  const reason = typeof payload.reason === 'string' ? ` ${payload.reason}` : '';
  return {
    approval: {
      reason: `The remote agent ${agentName} asks to approve${tool}.${reason}`,
      input: payload.input ?? payload,
    },
  };
}

/** The ask (and its state) for a remote task waiting for input. */
export function askFor(
  task: Task,
  toolName: string,
  round: number,
): { request: AskRequest; state: RemoteAskState } {
  const pending = turnkitPending(task);
  if (pending) {
    const kind = pending.kind === 'question' || pending.kind === 'input' ? pending.kind : 'approval';
    return {
      request: turnkitAsk(pending, toolName),
      state: { taskId: task.id, round, answer: { type: 'turnkit', id: pending.id, kind } },
    };
  }
  const text = statusText(task).trim() || 'The remote agent needs more input.';
  const question = text.length > MAX_QUESTION ? `${text.slice(0, MAX_QUESTION - 1)}…` : text;
  return {
    request: {
      questions: [{ question, header: toolName.slice(0, MAX_HEADER), options: offeredOptions(task) }],
    },
    state: { taskId: task.id, round, answer: { type: 'text' } },
  };
}

/** The message body that answers the remote task with the person's response. */
export function answerFor(
  response: AskResponse,
  state: RemoteAskState,
): { text: string } | { data: unknown } {
  const { answer } = state;
  if (answer.type === 'turnkit') {
    if (response.kind === 'question')
      return { data: { type: 'answer', id: answer.id, answers: response.answers } };
    if (response.kind === 'input') return { data: { type: 'input', id: answer.id, value: response.value } };
    return {
      data: response.approved
        ? { type: 'approve', id: answer.id, ...(response.rationale ? { rationale: response.rationale } : {}) }
        : { type: 'reject', id: answer.id, ...(response.rationale ? { rationale: response.rationale } : {}) },
    };
  }
  if (response.kind !== 'question') {
    throw new A2aRemoteError(`A text question to a remote agent was answered as ${response.kind}.`);
  }
  const [only] = Object.values(response.answers);
  if (!only || 'skipped' in only) return { text: '(skipped)' };
  return { text: only.other ?? only.selected.join(', ') };
}
