/**
 * The UI message stream chunks TurnKit emits, and their wire form. Only the fields that `ai@6.0.0`
 * accepts appear here: its chunk schemas are strict objects, so one extra key (or a `null` where a
 * field is optional) makes an early 6.0.x client throw and drop the chat into `status: 'error'`.
 * The wire form is Server-Sent Events: one `data: <json>` event per chunk, then `data: [DONE]`.
 */

/** Why a message stopped, as `finish` reports it. */
export type UIFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** One chunk of the UI message stream v1, restricted to what TurnKit emits. */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: unknown }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'message-metadata'; messageMetadata: unknown }
  | { type: 'finish'; finishReason?: UIFinishReason; messageMetadata?: unknown }
  | { type: 'error'; errorText: string };

/** The response headers of a UI message stream (as `ai`'s own `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

const encoder = new TextEncoder();

/** One chunk as the bytes of its SSE event. */
export function encodeChunk(chunk: UIMessageChunk): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`);
}

/** The event that ends the stream (clients ignore it; `ai`'s servers send it). */
export const DONE_EVENT: Uint8Array = encoder.encode('data: [DONE]\n\n');

/**
 * A stream response whose chunks are pushed as they come. When the client goes away (`useChat`'s
 * `stop()`, a closed tab) `onCancel` runs, and `push` and `close` do nothing from then on (never
 * throwing): the producer, a turn that plays on, writes into nothing and holds no queued bytes.
 */
export function chunkStream(onCancel?: () => void): {
  response: Response;
  push(chunk: UIMessageChunk): void;
  close(): void;
} {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(given) {
      controller = given;
    },
    cancel() {
      open = false;
      controller = null;
      onCancel?.();
    },
  });
  return {
    response: new Response(body, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS }),
    push(chunk) {
      if (!open) return;
      try {
        controller?.enqueue(encodeChunk(chunk));
      } catch {
        // Errored under us (the connection broke): write nothing more.
        open = false;
      }
    },
    close() {
      if (!open) return;
      open = false;
      try {
        controller?.enqueue(DONE_EVENT);
        controller?.close();
      } catch {
        // Already errored: nothing left to close.
      }
    },
  };
}
