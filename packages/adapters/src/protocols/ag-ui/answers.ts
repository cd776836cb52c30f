/**
 * Answers coming back, as core responses. The next run's `resume: [{ interruptId, status, payload }]`
 * answers interrupts: `payload` is `{ answers }` for a question, `{ approved, editedArgs?, reason? }`
 * for an approval, the value for an input form; `cancelled` cancels a question or a form and
 * rejects an approval. Some front ends answer a question by adding a tool message for the
 * interrupt's `toolCallId` instead: such a message answers the interrupt when it is still pending
 * and `resume` does not, so nothing is ever answered twice.
 *
 * A tool message answers one interaction, not every call with its id: a provider may reuse a call
 * id, and the client's history still holds the message that answered the earlier call. So the
 * answer must come after the call it answers: after the client's copy of the call the run holds
 * pending (the run's n-th call with that id), or, when the client's history shows no calls, beyond
 * the results the run already recorded for that id.
 */
import type {
  AnyAgent,
  ChatMessage,
  InteractionKind,
  PendingInteraction,
  ResponseInput,
} from '@turnkit/core';
import { HttpProblem } from '../../http/index.js';
import type { InputMessage, ResumeEntry } from './input.js';
import { interruptToolCallId } from './interrupts.js';
import { textOf } from './messages.js';

/** What the answers are matched against. */
export interface AnswerTarget {
  threadId: string;
  agent: AnyAgent;
  pending: readonly PendingInteraction[];
  /** The run's transcript: the tool results it already recorded. */
  transcript: readonly ChatMessage[];
  /** The kind of an interaction that is no longer pending (a replayed answer), if the run knows it. */
  resolvedKind(id: string): InteractionKind | undefined;
}

type Path = (string | number)[];

function invalid(path: Path, message: string): HttpProblem {
  const where = path.join('.');
  return new HttpProblem('ANSWER_INVALID', `The answer does not fit its interrupt:\n- ${where}: ${message}`, {
    issues: [{ path, message }],
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function optionalText(value: unknown, path: Path): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(path, 'must be a string');
  return value;
}

/** `editedArgs` as an object, or the JSON text of one (tool arguments travel as text in AG-UI messages). */
function editedInput(value: unknown, path: Path): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw invalid(path, 'must be the edited input: an object, or its JSON text');
  }
}

/** The response of one resolved interrupt, from its payload. */
function resolved(id: string, kind: InteractionKind, payload: unknown, path: Path): ResponseInput {
  switch (kind) {
    case 'question':
      if (!isRecord(payload) || payload.answers === undefined) {
        throw invalid(path, 'a question is answered with { answers }, keyed by question header');
      }
      return {
        id,
        type: 'answer',
        answers: payload.answers as Extract<ResponseInput, { type: 'answer' }>['answers'],
      };
    // A call in doubt (DESIGN §21) is decided like an approval: approved runs it again.
    case 'approval':
    case 'in_doubt': {
      if (!isRecord(payload) || typeof payload.approved !== 'boolean') {
        throw invalid(path, 'an approval is answered with { approved: true | false, editedArgs?, reason? }');
      }
      const rationale = optionalText(payload.reason, [...path, 'reason']);
      const note = rationale !== undefined ? { rationale } : {};
      if (!payload.approved) return { id, type: 'reject', ...note };
      const edited =
        payload.editedArgs === undefined
          ? {}
          : { editedInput: editedInput(payload.editedArgs, [...path, 'editedArgs']) };
      return { id, type: 'approve', ...note, ...edited };
    }
    // A hook's review (DESIGN §26): approved (maybe with an edited subject), or rejected with a reason.
    case 'review': {
      if (!isRecord(payload) || typeof payload.approved !== 'boolean') {
        throw invalid(
          path,
          'a review is answered with { approved: true | false, edit?, reason?, remember? }',
        );
      }
      const rationale = optionalText(payload.reason, [...path, 'reason']);
      const note = rationale !== undefined ? { rationale } : {};
      if (!payload.approved) return { id, type: 'reject', ...note };
      const given = payload.edit ?? payload.editedArgs;
      return {
        id,
        type: 'approve',
        ...note,
        ...(given !== undefined ? { edit: given } : {}),
        ...(payload.remember === 'run' ? { remember: 'run' as const } : {}),
      };
    }
    case 'input':
      if (payload === undefined) throw invalid(path, "an input form is answered with the form's value");
      return { id, type: 'input', value: payload };
    case 'budget': {
      // A budget (DESIGN §20): { approved, extend? } — core checks the extension's limits.
      if (!isRecord(payload) || typeof payload.approved !== 'boolean') {
        throw invalid(path, 'a budget is answered with { approved: true | false, extend? }');
      }
      if (!payload.approved) return { id, type: 'reject' };
      return {
        id,
        type: 'approve',
        ...(payload.extend !== undefined ? { extend: payload.extend as Record<string, number> } : {}),
      };
    }
  }
}

/** The response of a cancelled interrupt: questions and forms are cancelled, approvals rejected. */
function cancelled(id: string, kind: InteractionKind, payload: unknown, path: Path): ResponseInput {
  const reason = isRecord(payload) ? optionalText(payload.reason, [...path, 'reason']) : undefined;
  if (kind === 'approval')
    return { id, type: 'reject', ...(reason !== undefined ? { rationale: reason } : {}) };
  return { id, type: 'cancel', ...(reason !== undefined ? { reason } : {}) };
}

/** A tool message's content as a payload: its JSON when it has one, else its text. */
function toolMessagePayload(kind: InteractionKind, text: string): unknown {
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Plain text: a question's answer for one question, or a text form value.
  }
  if (kind === 'question' && !(isRecord(parsed) && 'answers' in parsed)) return { answers: parsed };
  return parsed;
}

/** Whether a message is an assistant message calling `toolCallId`. */
const calls = (message: { role: string; toolCalls?: readonly { id: string }[] | undefined }, id: string) =>
  message.role === 'assistant' && (message.toolCalls ?? []).some((call) => call.id === id);

/**
 * The index of the client's tool message that answers the call pending under `toolCallId`, or -1.
 * The transcript holds that call as its `n`-th call with this id. When the client's history shows
 * the calls, the answer is its first tool message for the id after its `n`-th such call (a history
 * showing fewer has not seen the pending call: its messages answer earlier ones). When it shows
 * none, the answer is its first tool message for the id beyond those the transcript recorded,
 * counting a message id once (a client may hold one message twice).
 */
function answeringToolMessage(
  messages: readonly InputMessage[],
  transcript: readonly ChatMessage[],
  toolCallId: string,
): number {
  const isAnswer = (message: InputMessage) => message.role === 'tool' && message.toolCallId === toolCallId;
  const callsInRun = transcript.filter(
    (message) =>
      message.role === 'assistant' && (message.tool_calls ?? []).some((call) => call.id === toolCallId),
  ).length;
  const shown = messages.flatMap((message, index) => (calls(message, toolCallId) ? [index] : []));
  if (callsInRun > 0 && shown.length > 0) {
    if (shown.length < callsInRun) return -1;
    const end = shown[callsInRun] ?? messages.length;
    for (let index = shown[callsInRun - 1]! + 1; index < end; index++) {
      if (isAnswer(messages[index]!)) return index;
    }
    return -1;
  }
  let recorded = transcript.filter(
    (message) => message.role === 'tool' && message.tool_call_id === toolCallId,
  ).length;
  const seen = new Set<string>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (!isAnswer(message) || seen.has(message.id)) continue;
    seen.add(message.id);
    if (recorded === 0) return index;
    recorded--;
  }
  return -1;
}

/** The responses a request carries: its `resume` entries, then tool messages answering pending interrupts. */
export function toResponses(
  resume: readonly ResumeEntry[],
  messages: readonly InputMessage[],
  target: AnswerTarget,
): ResponseInput[] {
  const responses = resume.map((entry, index): ResponseInput => {
    const path: Path = ['resume', index, 'payload'];
    const kind =
      target.pending.find((interaction) => interaction.id === entry.interruptId)?.kind ??
      target.resolvedKind(entry.interruptId);
    if (kind === undefined) {
      const pending = target.pending.map((interaction) => interaction.id).join(', ') || 'none';
      throw new HttpProblem(
        'INTERACTION_NOT_FOUND',
        `Thread ${target.threadId} has no interrupt ${JSON.stringify(entry.interruptId)} (pending now: ${pending}). Answer the interrupts of the thread's last RUN_FINISHED.`,
      );
    }
    return entry.status === 'cancelled'
      ? cancelled(entry.interruptId, kind, entry.payload, path)
      : resolved(entry.interruptId, kind, entry.payload, path);
  });
  const answered = new Set(resume.map((entry) => entry.interruptId));
  for (const interaction of target.pending) {
    if (answered.has(interaction.id)) continue;
    const toolCallId = interruptToolCallId(interaction, target.agent);
    const index = answeringToolMessage(messages, target.transcript, toolCallId);
    if (index === -1) continue;
    const message = messages[index] as Extract<InputMessage, { role: 'tool' }>;
    const payload = toolMessagePayload(interaction.kind, textOf(message.content));
    responses.push(resolved(interaction.id, interaction.kind, payload, ['messages', index, 'content']));
  }
  return responses;
}
