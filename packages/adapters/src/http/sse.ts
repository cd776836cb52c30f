/**
 * `GET /runs/:id/events` as Server-Sent Events: a first message with the run's current state, then
 * the live events of the run from the {@link EventHub}, with a comment line every `heartbeatMs` so
 * proxies keep the connection open. The subscription and the timer end when the client goes away
 * (the stream is cancelled or the request aborted), or when a client reads too slowly.
 */
import type { EventHub, HubMessage } from './hub.js';

/** Most messages queued for one slow client before its stream is closed (it can reconnect). */
const MAX_QUEUED = 1000;

/** Encodes one message in the SSE wire format (the JSON `data` is always a single line). */
export function formatSse(message: HubMessage): string {
  const id = message.id !== undefined ? `id: ${message.id}\n` : '';
  return `event: ${message.event}\n${id}data: ${JSON.stringify(message.data)}\n\n`;
}

/** Options of {@link sseResponse}. */
export interface SseOptions {
  hub: EventHub;
  runId: string;
  /** The first message, sent on connect. */
  initial: HubMessage;
  heartbeatMs: number;
  headers?: Record<string, string>;
}

/** A streaming `text/event-stream` response for one run. */
export function sseResponse(request: Request, options: SseOptions): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED) {
          close();
          return;
        }
        controller.enqueue(encoder.encode(text));
      };
      const unsubscribe = options.hub.subscribe(options.runId, (message) => write(formatSse(message)));
      const timer = setInterval(() => write(': ping\n\n'), options.heartbeatMs);
      // The open connection keeps a server alive; the timer alone must not keep a process alive.
      (timer as { unref?: () => void }).unref?.();
      const onAbort = () => close();
      cleanup = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        clearInterval(timer);
        request.signal.removeEventListener('abort', onAbort);
      };
      function close() {
        if (!open) return;
        cleanup();
        try {
          controller.close();
        } catch {
          // Already closed or errored by the runtime.
        }
      }
      request.signal.addEventListener('abort', onAbort);
      if (request.signal.aborted) return close();
      write(`retry: 2000\n\n${formatSse(options.initial)}`);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
      ...options.headers,
    },
  });
}
