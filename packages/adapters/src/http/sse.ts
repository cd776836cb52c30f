/**
 * `GET /runs/:id/events` as Server-Sent Events: a first message with the run's current state, then
 * the live events of the run from the {@link EventHub}, with a comment line every `heartbeatMs` so
 * proxies keep the connection open.
 *
 * Resumption: a stream that reconnects with `Last-Event-ID: <seq>` gets, instead of the current
 * state, every message the hub still holds after that event, then live ones. When the hub no
 * longer holds that event (its retention dropped it), the stream starts with the current state
 * instead, if it is at least as far as the client got, and goes on from there. Each stream drops
 * any message whose place in the run is not after the last one it sent, so no event is sent twice.
 *
 * Lifecycle: a `HEAD` request gets the headers and nothing else (no subscription, no timer). A
 * stream that ends for any reason (the client cancels or goes away, the request is aborted, the
 * runtime errors the stream, the hub is closed, or the client falls behind) removes its listener
 * and its timer. A client falls behind when the bytes queued for it and not yet read would pass
 * `maxQueuedBytes`: its stream is closed, and it may reconnect. Each message is encoded once,
 * whatever the number of streams it goes to, so slow clients of one run share the same bytes.
 */
import {
  type EventHub,
  eventPosition,
  type HubMessage,
  parseSeq,
  positionOf,
  type Subscription,
  type Unsubscribe,
} from '../events/index.js';

/** Default `maxQueuedBytes`: 8 MiB per stream. */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();
const encodedMessages = new WeakMap<HubMessage, Uint8Array>();
const PING = encoder.encode(': ping\n\n');
const RETRY = encoder.encode('retry: 2000\n\n');

/** Encodes one message in the SSE wire format (the JSON `data` is always a single line). */
export function formatSse(message: HubMessage): string {
  const id = message.id !== undefined ? `id: ${message.id}\n` : '';
  return `event: ${message.event}\n${id}data: ${JSON.stringify(message.data)}\n\n`;
}

/** The wire bytes of a message, encoded once however many streams send it. */
function encoded(message: HubMessage): Uint8Array {
  let bytes = encodedMessages.get(message);
  if (!bytes) {
    bytes = encoder.encode(formatSse(message));
    encodedMessages.set(message, bytes);
  }
  return bytes;
}

/** The error a stream is aborted with when its client falls behind (the server closes the connection). */
function fellBehind(options: SseOptions): Error {
  return new Error(
    `TurnKit: an event stream of run ${options.runId} was cut because its client left more than ${options.maxQueuedBytes} bytes unread; the client may reconnect with Last-Event-ID.`,
  );
}

/** Options of {@link sseResponse}. */
export interface SseOptions {
  hub: EventHub;
  runId: string;
  /**
   * What a new stream starts with: the run's current `state` (its id the run's seq), or a message
   * without id (client-held mode's `ready`), which every stream starts with.
   */
  initial: HubMessage;
  /** The seq of the request's `Last-Event-ID` header, when the client is reconnecting. */
  lastEventId?: number;
  heartbeatMs: number;
  /** Most bytes queued and unread before the stream is cut off. */
  maxQueuedBytes: number;
  headers?: Record<string, string>;
}

/** A streaming `text/event-stream` response for one run (headers only for `HEAD`). */
export function sseResponse(request: Request, options: SseOptions): Response {
  const headers = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store',
    'x-accel-buffering': 'no',
    ...options.headers,
  };
  if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
  let end: (cut?: Error) => void = () => {};
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        let unsubscribe: Unsubscribe | undefined;
        let timer: ReturnType<typeof setInterval> | undefined;
        const onAbort = () => end();
        end = (cut?: Error) => {
          if (!open) return;
          open = false;
          unsubscribe?.();
          clearInterval(timer);
          request.signal.removeEventListener('abort', onAbort);
          try {
            // Closing would keep the queued bytes until read; erroring drops them and makes the
            // server abort the response, closing the connection of a client that reads nothing.
            if (cut) controller.error(cut);
            else controller.close();
          } catch {
            // Already closed, cancelled or errored.
          }
        };
        const write = (bytes: Uint8Array) => {
          if (!open) return;
          // desiredSize is maxQueuedBytes minus the bytes queued: this write would pass the cap.
          if ((controller.desiredSize ?? 0) < bytes.byteLength) return end(fellBehind(options));
          try {
            controller.enqueue(bytes);
          } catch {
            end();
          }
        };
        if (request.signal.aborted) return end();
        request.signal.addEventListener('abort', onAbort);

        const { initial, lastEventId } = options;
        const initialPosition = positionOf(initial);
        /** The place of the last message sent: nothing at or before it is sent again. */
        let sent = lastEventId === undefined ? -1 : eventPosition(lastEventId);
        const forward = (message: HubMessage) => {
          const position = positionOf(message);
          if (position !== null) {
            if (position <= sent) return;
            sent = position;
          }
          write(encoded(message));
        };
        write(RETRY);
        if (lastEventId === undefined || initialPosition === null) forward(initial);
        if (!open) return;

        // Until the subscription is known, messages wait here (by bytes, like the queue), so the
        // current state can still go first when the hub cannot resume.
        let waiting: HubMessage[] | null = [];
        let waitingBytes = 0;
        const listener = (message: HubMessage) => {
          if (!open) return;
          if (waiting === null) return forward(message);
          waiting.push(message);
          waitingBytes += encoded(message).byteLength;
          if (waitingBytes > (controller.desiredSize ?? 0)) end(fellBehind(options));
        };
        const begin = (subscription: Subscription) => {
          if (!open) return subscription.unsubscribe();
          unsubscribe = subscription.unsubscribe;
          const stateSeq = parseSeq(initial.id);
          if (
            lastEventId !== undefined &&
            !subscription.resumed &&
            stateSeq !== null &&
            stateSeq >= lastEventId
          ) {
            forward(initial);
          }
          const queued = waiting ?? [];
          waiting = null;
          for (const message of queued) forward(message);
        };
        const after = lastEventId ?? parseSeq(initial.id) ?? undefined;
        let subscribed: Subscription | Promise<Subscription>;
        try {
          subscribed = options.hub.subscribe(
            options.runId,
            listener,
            after === undefined ? { onEnd: end } : { after, onEnd: end },
          );
        } catch {
          return end();
        }
        if ('then' in subscribed) subscribed.then(begin, () => end());
        else begin(subscribed);
        if (!open) return;
        timer = setInterval(() => write(PING), options.heartbeatMs);
        // The open connection keeps a server alive; the timer alone must not keep a process alive.
        (timer as { unref?: () => void }).unref?.();
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: options.maxQueuedBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(stream, { status: 200, headers });
}
