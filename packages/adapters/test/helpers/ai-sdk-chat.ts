/**
 * The AI SDK side of the `aiSdkHandler` tests: a Node `AbstractChat` (what `useChat` is built on)
 * over `DefaultChatTransport`, for both the latest `ai@6` and `ai@6.0.0` exactly; a loopback server
 * around a handler that records every request and every chunk it streams; and the check that each
 * of those chunks fits `ai@6.0.0`'s strict `uiMessageChunkSchema`.
 */

import type { ChatState, ChatStatus, UIMessage } from 'ai';
import * as latest from 'ai';
import * as exact from 'ai-6.0.0';
import { afterEach, expect } from 'vitest';
import { type TurnkitMetadata, turnkitMetadataOf } from '../../src/protocols/ai-sdk-ui/client.js';
import { type Listening, listen } from '../http-fixtures.js';

/** The two `ai` versions the chat tests run on. */
export const AI_VERSIONS = [
  { name: 'ai@latest', ai: latest },
  { name: 'ai@6.0.0', ai: exact as unknown as typeof latest },
] as const;

/** An `ai` module (either version). */
export type AiModule = typeof latest;

/** `ChatState` in memory, as `@ai-sdk/react`'s, with deep copies (the stream mutates its message). */
class NodeChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[];
  constructor(messages: UIMessage[] = []) {
    this.messages = messages;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = this.messages.concat(message);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [
      ...this.messages.slice(0, index),
      this.snapshot(message),
      ...this.messages.slice(index + 1),
    ];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A chat as a front end holds it. */
export type NodeChat = InstanceType<AiModule['AbstractChat']> & { readonly state: NodeChatState };

/** Options of {@link makeChat}. */
export interface ChatOptions {
  api: string;
  id: string;
  messages?: UIMessage[];
  sendAutomaticallyWhen?: (options: { messages: UIMessage[] }) => boolean;
  headers?: Record<string, string>;
  /** Post only the last two messages (the recipe for long client-held chats). */
  lastTwo?: boolean;
}

/** A chat over `DefaultChatTransport` on the given `ai` version. */
export function makeChat(ai: AiModule, options: ChatOptions): NodeChat {
  const state = new NodeChatState(options.messages);
  class Chat extends ai.AbstractChat<UIMessage> {
    override readonly state = state;
  }
  let ids = 0;
  const chat = new Chat({
    id: options.id,
    state,
    generateId: () => `client-${++ids}`,
    transport: new ai.DefaultChatTransport({
      api: options.api,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.lastTwo
        ? {
            prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
              body: { id, messages: messages.slice(-2), trigger, messageId },
            }),
          }
        : {}),
    }),
    ...(options.sendAutomaticallyWhen ? { sendAutomaticallyWhen: options.sendAutomaticallyWhen } : {}),
  });
  return chat as unknown as NodeChat;
}

/** One request the server received, with the chunks it streamed back (if any). */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary bodies.
  body: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary chunks.
  chunks: any[];
  done: Promise<void>;
}

/** A handler served on loopback, with everything it exchanged. */
export interface ChatServer extends Listening {
  exchanges: Exchange[];
  /** Requests whose response has not ended yet. */
  inFlight(): number;
}

/** Splits SSE text into `data:` chunks (but `[DONE]`) as it arrives. */
function chunkParser(into: unknown[]): (text: string) => void {
  let buffer = '';
  return (text) => {
    buffer += text;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (frame.startsWith('data: ') && frame !== 'data: [DONE]') into.push(JSON.parse(frame.slice(6)));
    }
  };
}

/** Reads the chunks of a UI message stream (its `data:` events but `[DONE]`) into `into`. */
export async function readChunks(body: ReadableStream<Uint8Array>, into: unknown[]): Promise<void> {
  const parse = chunkParser(into);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parse(decoder.decode(value, { stream: true }));
  }
}

/** Serves `handler` on 127.0.0.1, recording each request and the chunks of each streamed answer. */
export async function serveChat(handler: (request: Request) => Promise<Response>): Promise<ChatServer> {
  const exchanges: Exchange[] = [];
  let open = 0;
  const listening = await listen(async (request) => {
    const text = request.method === 'POST' ? await request.clone().text() : '';
    const response = await handler(request);
    const exchange: Exchange = {
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      body: text === '' ? null : JSON.parse(text),
      chunks: [],
      done: Promise.resolve(),
    };
    exchanges.push(exchange);
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream'))
      return response;
    // Recorded on the way through, so a client that leaves cancels the handler's stream itself.
    const parse = chunkParser(exchange.chunks);
    const decoder = new TextDecoder();
    open++;
    let ended: () => void = () => {};
    exchange.done = new Promise<void>((resolve) => {
      let once = false;
      ended = () => {
        if (once) return;
        once = true;
        open--;
        resolve();
      };
    });
    const reader = response.body.getReader();
    const recorded = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          ended();
          controller.close();
          return;
        }
        parse(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      },
      cancel(reason) {
        ended();
        return reader.cancel(reason);
      },
    });
    return new Response(recorded, { status: response.status, headers: response.headers });
  });
  return { ...listening, exchanges, inFlight: () => open };
}

/** Waits until the chat and the server are idle (automatic re-posts are not awaited by `ai`). */
export async function settle(chat: NodeChat, server: ChatServer, minExchanges = 0): Promise<void> {
  let quiet = 0;
  for (let tick = 0; tick < 1000; tick++) {
    const idle =
      (chat.status === 'ready' || chat.status === 'error') &&
      server.inFlight() === 0 &&
      server.exchanges.length >= minExchanges;
    quiet = idle ? quiet + 1 : 0;
    if (quiet >= 5) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`The chat did not settle: status ${chat.status}, ${server.exchanges.length} requests.`);
}

const schema = exact.uiMessageChunkSchema();

/** `chunk` fits `ai@6.0.0`'s strict chunk schemas (no extra key, no null). */
export async function expectValidChunk(chunk: unknown): Promise<void> {
  const result = await schema.validate!(chunk);
  expect(result.success, `invalid chunk for ai@6.0.0: ${JSON.stringify(chunk)}`).toBe(true);
}

/** Every chunk the server streamed fits `ai@6.0.0`'s strict chunk schemas; returns how many. */
export async function expectValidChunks(server: ChatServer): Promise<number> {
  let count = 0;
  for (const exchange of server.exchanges) {
    await exchange.done;
    for (const chunk of exchange.chunks) await expectValidChunk(chunk);
    count += exchange.chunks.length;
  }
  return count;
}

/** A compact picture of a message's parts: `step`, `text:<text>`, `tool-x/<state>`. */
export function partsOf(message: UIMessage | undefined): string[] {
  return (message?.parts ?? []).map((part) => {
    if (part.type === 'step-start') return 'step';
    if (part.type === 'text') return `text:${part.text}`;
    return 'state' in part ? `${part.type}/${part.state}` : part.type;
  });
}

/** The tool part with `toolCallId` in the chat's last message. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary parts.
export function partOf(chat: NodeChat, toolCallId: string): any {
  return chat.lastMessage?.parts.find((part) => 'toolCallId' in part && part.toolCallId === toolCallId);
}

/** `metadata.turnkit` of the chat's last message (fails the test when it has none). */
export function turnkitOf(chat: NodeChat): TurnkitMetadata {
  const metadata = turnkitMetadataOf(chat.lastMessage);
  expect(metadata, 'the last message carries metadata.turnkit').not.toBeNull();
  return metadata as TurnkitMetadata;
}

/** `sendMessage({ text })`, then waits for the answer. */
export async function say(chat: NodeChat, server: ChatServer, text: string): Promise<void> {
  const before = server.exchanges.length;
  await chat.sendMessage({ text });
  await settle(chat, server, before + 1);
}

/** `addToolOutput` on a question or form part, then waits for the automatic re-post. */
export async function answer(
  chat: NodeChat,
  server: ChatServer,
  toolCallId: string,
  output: { answers: unknown } | { value: unknown } | { errorText: string },
): Promise<void> {
  const before = server.exchanges.length;
  await chat.addToolOutput(
    'errorText' in output
      ? { state: 'output-error', tool: 'AskUserQuestion', toolCallId, errorText: output.errorText }
      : { tool: 'AskUserQuestion', toolCallId, output },
  );
  await settle(chat, server, before + 1);
}

/** `addToolApprovalResponse`, then waits for the automatic re-post. */
export async function decide(
  chat: NodeChat,
  server: ChatServer,
  id: string,
  approved: boolean,
  reason?: string,
): Promise<void> {
  const before = server.exchanges.length;
  await chat.addToolApprovalResponse({ id, approved, ...(reason !== undefined ? { reason } : {}) });
  await settle(chat, server, before + 1);
}

/** The first part of `type` in the chat's last message. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary parts.
export function partByType(chat: NodeChat, type: string): any {
  return chat.lastMessage?.parts.find((part) => part.type === type);
}

/**
 * For a test file: `open(handler)` serves a handler on loopback; after each test, every chunk each
 * server streamed is checked against `ai@6.0.0`'s schemas (there must be some) and it is closed.
 */
export function chatServers(): (handler: (request: Request) => Promise<Response>) => Promise<ChatServer> {
  const servers: ChatServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      expect(await expectValidChunks(server)).toBeGreaterThan(0);
      await server.close();
    }
  });
  return async (handler) => {
    const server = await serveChat(handler);
    servers.push(server);
    return server;
  };
}
