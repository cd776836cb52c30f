/**
 * The response of one AG-UI run: a finite Server-Sent Events stream, one `data: <event JSON>` frame
 * per event (LF line ends only: the AG-UI client splits frames on a blank line of bare LFs), ended
 * by the handler after `RUN_FINISHED` or `RUN_ERROR`. While a turn works in silence (a slow tool)
 * a comment line every `heartbeatMs` keeps proxies from closing the connection; the AG-UI client
 * ignores comments. A client that leaves more than `maxQueuedBytes` unread is cut off, and a
 * stream that ends for any reason — finished, cancelled, the request aborted — stops its timer.
 * The turn itself goes on either way: in store mode its result is kept for the next run.
 */
import { formatSse } from '../../http/index.js';
import type { AgUiEvent } from './events.js';

const encoder = new TextEncoder();
const PING = encoder.encode(': ping\n\n');

/** A run's event stream. */
export interface EventStream {
  readonly response: Response;
  /** Sends one event; does nothing once the stream has ended. */
  send(event: AgUiEvent): void;
  /** Ends the stream (idempotent). */
  end(): void;
}

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  heartbeatMs: number;
  maxQueuedBytes: number;
}

/** Opens the event stream answering `request`. */
export function eventStream(request: Request, options: EventStreamOptions): EventStream {
  let open = true;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const onAbort = () => end();
  function end(): void {
    if (!open) return;
    open = false;
    clearInterval(timer);
    request.signal.removeEventListener('abort', onAbort);
    try {
      controller?.close();
    } catch {
      // Already closed, cancelled or errored.
    }
  }
  function write(bytes: Uint8Array): void {
    if (!open || !controller) return;
    // desiredSize is maxQueuedBytes minus the bytes queued: this write would pass the cap.
    if ((controller.desiredSize ?? 0) < bytes.byteLength) {
      end();
      return;
    }
    try {
      controller.enqueue(bytes);
    } catch {
      end();
    }
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        if (request.signal.aborted) return end();
        request.signal.addEventListener('abort', onAbort);
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
  const response = new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
    },
  });
  return {
    response,
    send: (event) => write(encoder.encode(formatSse({ event: event.type, data: event }))),
    end,
  };
}
