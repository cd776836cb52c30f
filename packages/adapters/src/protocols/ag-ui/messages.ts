/**
 * Between AG-UI messages and TurnKit's transcript. An AG-UI client posts its whole conversation on
 * every run; TurnKit keeps the transcript itself (in the store, or in the client-held snapshot), so
 * the client's messages are read for two things only: the conversation that starts a new thread,
 * and the user messages typed since the transcript was last sent. The transcript goes back out as
 * `MESSAGES_SNAPSHOT`, position by position: a message keeps the id the client gave it when the
 * client's message at the same position is the same one, so ids stay stable across runs.
 */
import type { ChatMessage } from '@turnkit/core';
import { HttpProblem } from '../../http/index.js';
import type { AgUiMessage } from './events.js';
import type { InputMessage } from './input.js';

/** A client message in a role TurnKit keeps. */
export type ConversationMessage = Extract<InputMessage, { role: 'user' | 'assistant' | 'tool' }>;

/** The client's messages in the roles a transcript holds (system, developer, activity and reasoning dropped). */
export function conversation(messages: readonly InputMessage[]): ConversationMessage[] {
  return messages.filter(
    (message): message is ConversationMessage =>
      message.role === 'user' || message.role === 'assistant' || message.role === 'tool',
  );
}

/** The text of AG-UI content: a string, or text parts joined by blank lines (other parts are refused). */
export function textOf(content: string | readonly { type: string; text?: string | undefined }[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw new HttpProblem(
          'BAD_REQUEST',
          `A message holds a "${part.type}" part: this agent reads text only. Send the text, without images, audio or files.`,
        );
      }
      return part.text;
    })
    .join('\n\n');
}

/** Function calls copied field by field: the same shape in both formats, without the client's extra fields. */
function copyCalls(calls: readonly { id: string; function: { name: string; arguments: string } }[]) {
  return calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.function.name, arguments: call.function.arguments },
  }));
}

/** The client's conversation as chat messages: what a new thread starts from. */
export function toChatMessages(messages: readonly ConversationMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    if (message.role === 'user') return { role: 'user', content: textOf(message.content) };
    if (message.role === 'tool') {
      return { role: 'tool', tool_call_id: message.toolCallId, content: textOf(message.content) };
    }
    const calls = message.toolCalls ?? [];
    return {
      role: 'assistant',
      content: message.content ?? null,
      ...(calls.length > 0 ? { tool_calls: copyCalls(calls) } : {}),
    };
  });
}

/**
 * The user messages at the end of the client's conversation that the transcript does not hold yet.
 * A trailing user message is already known when the transcript has the same text at the same
 * position (a request sent again after its run went on), so a repeated request adds nothing.
 */
export function newUserMessages(
  client: readonly ConversationMessage[],
  transcript: readonly ChatMessage[],
): ChatMessage[] {
  let start = client.length;
  while (start > 0 && client[start - 1]!.role === 'user') start--;
  const fresh: ChatMessage[] = [];
  for (let index = start; index < client.length; index++) {
    const text = textOf((client[index] as Extract<ConversationMessage, { role: 'user' }>).content);
    const known = transcript[index];
    if (fresh.length === 0 && known?.role === 'user' && known.content === text) continue;
    fresh.push({ role: 'user', content: text });
  }
  return fresh;
}

/** The text of content made of text only, else null (for comparing, never refusing). */
function plainText(content: Extract<ConversationMessage, { role: 'user' }>['content']): string | null {
  try {
    return textOf(content);
  } catch {
    return null;
  }
}

const callIds = (calls: readonly { id: string }[] | undefined) =>
  (calls ?? []).map((call) => call.id).join('\0');

/** Whether the client's message at a position is the transcript's message there. */
function sameMessage(theirs: ConversationMessage, ours: ChatMessage): boolean {
  switch (ours.role) {
    case 'user':
      return theirs.role === 'user' && plainText(theirs.content) === ours.content;
    case 'tool':
      return theirs.role === 'tool' && theirs.toolCallId === ours.tool_call_id;
    case 'assistant':
      return theirs.role === 'assistant' && callIds(theirs.toolCalls) === callIds(ours.tool_calls);
    default:
      return false;
  }
}

/** Gives transcript positions their message ids, as the run's events need them. */
export interface MessageIds {
  /** The id of a message the model is writing at `position` (its text streams before it is stored). */
  fresh(position: number): string;
  /**
   * The id of the message at `position`: the one it streamed under; else the id of the client's
   * message at the same position when it is the same message; else `turnkit-<position>`. Every id
   * is unique, and never one the client uses for another message.
   */
  at(position: number, message: ChatMessage): string;
}

/** Message ids for one run, keeping the client's where its messages match the transcript's. */
export function messageIds(client: readonly ConversationMessage[]): MessageIds {
  const clientIds = new Set(client.map((message) => message.id));
  const used = new Set<string>();
  const byPosition = new Map<number, string>();
  const keep = (position: number, id: string) => {
    byPosition.set(position, id);
    used.add(id);
    return id;
  };
  const fresh = (position: number) => {
    let id = `turnkit-${position}`;
    while (used.has(id) || clientIds.has(id)) id = `${id}-`;
    return keep(position, id);
  };
  return {
    fresh,
    at(position, message) {
      const known = byPosition.get(position);
      if (known !== undefined) return known;
      const theirs = client[position];
      if (theirs && theirs.id !== '' && !used.has(theirs.id) && sameMessage(theirs, message)) {
        return keep(position, theirs.id);
      }
      return fresh(position);
    },
  };
}

/** One transcript message as an AG-UI message (system messages never occur in a transcript). */
export function toAgUiMessage(message: ChatMessage, id: string): AgUiMessage | null {
  switch (message.role) {
    case 'user':
      return { id, role: 'user', content: message.content };
    case 'tool':
      return { id, role: 'tool', toolCallId: message.tool_call_id, content: message.content };
    case 'assistant':
      return {
        id,
        role: 'assistant',
        ...(message.content ? { content: message.content } : {}),
        ...(message.tool_calls?.length ? { toolCalls: copyCalls(message.tool_calls) } : {}),
      };
    default:
      return null;
  }
}
