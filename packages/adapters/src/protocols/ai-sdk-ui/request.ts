/**
 * What a `useChat` POST means. The body is AI SDK's: `{ id, messages, trigger, messageId? }` plus
 * whatever the app's transport adds (kept, not refused). Its last message decides:
 * - a **user** message is the next thing the user said (a new run, or the next turn of the run);
 * - an **assistant** message is the one the client continues: its parts hold the answers, each read
 *   from the part that shows a pending interaction (the message metadata and the run list them):
 *   - a question part at `output-available` with `output: { answers }` answers it;
 *   - an input form's part at `output-available` with `output: { value }` fills it in;
 *   - a question or form part at `output-error` cancels it (`errorText` is the reason);
 *   - a part at `approval-responded` approves or rejects (`approval.reason` is the rationale).
 *
 * Every shape problem is a 400 problem that names the path and says what to send instead.
 */
import type { Answers, ChatMessage, ResponseInput } from '@turnkit/core';
import { z } from 'zod';
import { HttpProblem, parseBody } from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';
import type { TurnkitPendingPart, UIMessageLike } from './client.js';

/** Longest rationale or cancel reason, in characters (as the HTTP routes allow). */
const MAX_NOTE = 16_384;

const part = z.looseObject({ type: z.string().max(200) });
const message = z.looseObject({
  id: z.string().max(1000).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.unknown().optional(),
  parts: z.array(part),
});

/** The body `useChat` (`DefaultChatTransport`) posts. */
export const chatRequestSchema = z.looseObject({
  // Chat ids name runs: what every store accepts as a run id.
  id: z
    .string()
    .refine(isSafeRunId, 'the chat id must be 1 to 200 of A-Z a-z 0-9 _ - . (no leading dot, no "..")'),
  messages: z.array(message).min(1, 'send at least the message to answer'),
  trigger: z.enum(['submit-message', 'regenerate-message']).default('submit-message'),
  messageId: z.string().max(1000).optional(),
});

/** A parsed chat request. */
export type ChatRequest = z.output<typeof chatRequestSchema>;

/** One message of a chat request. */
export type RequestMessage = ChatRequest['messages'][number];

/** The chat id of a body not validated yet, when it is usable as a run id (for `authorize`). */
export function chatIdOf(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return isSafeRunId(id) ? id : undefined;
}

/** Parses a request body; a body that does not fit is a 400 listing every issue by path. */
export function parseChatRequest(body: unknown): ChatRequest {
  const request = parseBody(chatRequestSchema, body);
  if (request.trigger === 'regenerate-message') {
    throw new HttpProblem(
      'BAD_REQUEST',
      'Regenerating a message is not supported: a TurnKit run does not rewind. Send a new user message instead (sendMessage).',
    );
  }
  return request;
}

function bad(path: string, detail: string): HttpProblem {
  return new HttpProblem('BAD_REQUEST', `${path}: ${detail}`, {
    issues: [{ path: [path], message: detail }],
  });
}

/** The text parts of a message, joined. */
function textOf(item: RequestMessage): string {
  return item.parts
    .filter((piece) => piece.type === 'text' && typeof piece.text === 'string')
    .map((piece) => piece.text as string)
    .join('\n');
}

/** The text of the last message, a user message; a message without text is refused. */
export function userText(request: ChatRequest): string {
  const index = request.messages.length - 1;
  const text = textOf(request.messages[index]!);
  if (text.trim() === '') {
    throw bad(`messages[${index}].parts`, 'the user message has no text part: send its text.');
  }
  return text;
}

/**
 * The input of a new run: the conversation's text (user and assistant text parts; the agent's own
 * instructions replace any system message), or the one user message when it is alone.
 */
export function conversationInput(request: ChatRequest): string | ChatMessage[] {
  const conversation: ChatMessage[] = [];
  for (const item of request.messages) {
    if (item.role === 'system') continue;
    const text = textOf(item);
    if (text.trim() !== '') conversation.push({ role: item.role, content: text });
  }
  return conversation.length === 1 ? conversation[0]!.content! : conversation;
}

/** The latest snapshot the client holds (client-held mode), from the assistant messages' metadata. */
export function heldSnapshot(request: ChatRequest): string | undefined {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const metadata = request.messages[index]!.metadata;
    const turnkit = (metadata as { turnkit?: { snapshot?: unknown } } | undefined)?.turnkit;
    if (typeof turnkit !== 'object' || turnkit === null || !('snapshot' in turnkit)) continue;
    if (typeof turnkit.snapshot === 'string' && turnkit.snapshot !== '') return turnkit.snapshot;
    throw bad(
      `messages[${index}].metadata.turnkit.snapshot`,
      'send back the snapshot string the server put there, unchanged.',
    );
  }
  return undefined;
}

const pendingEntry = z.object({
  id: z.string().min(1).max(1000),
  kind: z.enum(['question', 'approval', 'input', 'review']),
  toolCallId: z.string().min(1).max(1000),
});

/** The pending interactions the client's message lists (`metadata.turnkit.pending`); none if unreadable. */
export function listedPending(item: UIMessageLike): Pick<TurnkitPendingPart, 'id' | 'kind' | 'toolCallId'>[] {
  const pending = (item.metadata as { turnkit?: { pending?: unknown } } | undefined)?.turnkit?.pending;
  const parsed = z.array(pendingEntry).max(1000).safeParse(pending);
  return parsed.success ? parsed.data : [];
}

const approvalSchema = z.object({
  id: z.string(),
  approved: z.boolean(),
  reason: z.string().max(MAX_NOTE).optional(),
});

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function answersOf(output: unknown, path: string): Answers {
  const answers = (output as { answers?: unknown } | null)?.answers;
  if (typeof output !== 'object' || output === null || answers === undefined) {
    throw bad(
      `${path}.output`,
      "answer a question with addToolOutput({ tool: 'AskUserQuestion', toolCallId, output: { answers } }).",
    );
  }
  if (typeof answers === 'object' && answers !== null && !Array.isArray(answers)) {
    const key = Object.keys(answers).find((name) => FORBIDDEN_KEYS.has(name));
    if (key !== undefined)
      throw bad(`${path}.output.answers`, `the key ${JSON.stringify(key)} is not allowed.`);
  }
  // Their content is core's to check (ANSWER_INVALID, by path).
  return answers as Answers;
}

function formValue(output: unknown, path: string): unknown {
  if (typeof output !== 'object' || output === null || !('value' in output)) {
    throw bad(
      `${path}.output`,
      "fill in a form with addToolOutput({ tool: 'AskUserQuestion', toolCallId, output: { value } }).",
    );
  }
  return (output as { value: unknown }).value;
}

/**
 * The responses the client's assistant message holds, for the interactions `listed` names (each
 * with the `toolCallId` of its part; a later entry for the same part wins). Parts of other
 * interactions, and parts still waiting, are not responses.
 */
export function responsesOf(
  request: ChatRequest,
  listed: readonly Pick<TurnkitPendingPart, 'id' | 'kind' | 'toolCallId'>[],
): ResponseInput[] {
  const index = request.messages.length - 1;
  const item = request.messages[index]!;
  const byPart = new Map(listed.map((entry) => [entry.toolCallId, entry]));
  const responses = new Map<string, ResponseInput>();
  item.parts.forEach((piece, position) => {
    const entry = typeof piece.toolCallId === 'string' ? byPart.get(piece.toolCallId) : undefined;
    if (!entry || responses.has(entry.id)) return;
    const path = `messages[${index}].parts[${position}]`;
    const { id, kind } = entry;
    // A hook's review (DESIGN §26) is decided as an approval is.
    if (kind === 'approval' || kind === 'review') {
      if (piece.state !== 'approval-responded') return;
      const approval = approvalSchema.safeParse(piece.approval);
      if (!approval.success) {
        throw bad(`${path}.approval`, 'respond with addToolApprovalResponse({ id, approved, reason? }).');
      }
      const { approved, reason } = approval.data;
      const rationale = reason !== undefined ? { rationale: reason } : {};
      responses.set(
        id,
        approved ? { id, type: 'approve', ...rationale } : { id, type: 'reject', ...rationale },
      );
    } else if (piece.state === 'output-error') {
      const reason = typeof piece.errorText === 'string' ? piece.errorText.slice(0, MAX_NOTE) : undefined;
      responses.set(id, { id, type: 'cancel', ...(reason ? { reason } : {}) });
    } else if (piece.state === 'output-available') {
      responses.set(
        id,
        kind === 'question'
          ? { id, type: 'answer', answers: answersOf(piece.output, path) }
          : { id, type: 'input', value: formValue(piece.output, path) },
      );
    }
  });
  return [...responses.values()];
}
