/**
 * Raw requests to `aiSdkHandler`, for what the real client would not send: replays, races,
 * answers after expiry, malformed bodies. The answer's chunks are read whole, and `ai`'s own stream
 * reader builds the message a client would hold from them.
 */

import type { UIMessage } from 'ai';
import * as latest from 'ai';
import { expect } from 'vitest';
import type { TurnkitMetadata } from '../../src/protocols/ai-sdk-ui/client.js';
import { expectValidChunk, readChunks } from './ai-sdk-chat.js';

/** What a raw POST got back: the streamed chunks, or the problem body. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary chunks.
  chunks: any[];
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary problem bodies.
  problem: any;
}

/**
 * POSTs `body` (JSON, or a raw string) to `url` as `useChat` would, and reads the whole answer;
 * every chunk must fit `ai@6.0.0`'s schemas.
 */
export async function postChat(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const answer: RawAnswer = { status: response.status, headers: response.headers, chunks: [], problem: null };
  if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body) {
    await readChunks(response.body, answer.chunks);
    for (const chunk of answer.chunks) await expectValidChunk(chunk);
  } else {
    const text = await response.text();
    answer.problem = text === '' ? null : JSON.parse(text);
  }
  return answer;
}

/** The message a client builds from `chunks` (continuing `message`), by `ai`'s own stream reader. */
export async function assemble(chunks: unknown[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const built of latest.readUIMessageStream({
    stream: stream as Parameters<typeof latest.readUIMessageStream>[0]['stream'],
    // The reader continues the message in place: give it a copy.
    ...(message ? { message: structuredClone(message) } : {}),
    terminateOnError: true,
  })) {
    last = built;
  }
  if (!last) throw new Error('the stream built no message');
  return structuredClone(last);
}

/** A copy of `message` whose tool part `toolCallId` has `fields` (what addToolOutput & co. do). */
export function withPart(message: UIMessage, toolCallId: string, fields: Record<string, unknown>): UIMessage {
  const parts = message.parts.map((part) =>
    'toolCallId' in part && part.toolCallId === toolCallId ? { ...part, ...fields } : part,
  );
  return { ...message, parts } as UIMessage;
}

/** A user message as `useChat` sends it. */
export function userMessage(text: string, id = 'user-1'): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** The `turnkit` metadata of the `finish` chunk of a raw answer. */
export function finishOf(answer: RawAnswer): TurnkitMetadata {
  const finish = answer.chunks.find((chunk) => chunk.type === 'finish');
  expect(finish, 'the stream has a finish chunk').toBeDefined();
  return finish.messageMetadata.turnkit;
}
