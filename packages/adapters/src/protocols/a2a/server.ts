/**
 * The A2A endpoint on Web-standard requests, with the real `@a2a-js/sdk` (loaded by the mount on
 * its first request, so a handler that mounts A2A pays for the SDK only once it is called): the
 * agent card (1.0 by default, 0.3's shape for a caller that asks for 0.3 or names no version), and
 * JSON-RPC through the SDK's framework-neutral transport handlers — 1.0's (`SendMessage`…) for
 * `A2A-Version: 1.0`, the compatibility layer's (`message/send`…) for 0.3 — answered as JSON, or as
 * Server-Sent Events for the streaming methods. A JSON-RPC failure is a JSON-RPC error, never a 500.
 */
import { AgentCard, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler, LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Sessions } from '@turnkit/core';
import { CALL_KEY, type CallInfo, turnkitRequestHandler } from './handler.js';

type Rpc = Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
type RpcResponse = Exclude<Rpc, AsyncGenerator<unknown>>;

const VERSION_HEADER = 'A2A-Version';
const LEGACY = '0.3';

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    headers: { 'content-type': 'application/json', ...headers },
  });

/** The version a request asks for: its `A2A-Version`, else 0.3 (A2A's rule for a header left out). */
const versionOf = (request: Request) => request.headers.get(VERSION_HEADER)?.trim() || LEGACY;

/** The A2A server of one agent: answers card and JSON-RPC requests. */
export interface A2aServer {
  card(request: Request): Promise<Response>;
  rpc(request: Request, body: unknown, call: CallInfo): Promise<Response>;
}

const HEARTBEAT = ': keep-alive\n\n';

/**
 * Streams JSON-RPC responses as Server-Sent Events, pulling the next one only when the caller reads
 * (nothing queues for a slow reader), with a comment every `heartbeatMs` while a turn is quiet so
 * proxies keep the stream open. A caller that leaves ends the stream, never the turn.
 */
function sse(
  first: RpcResponse,
  rest: AsyncIterator<RpcResponse>,
  failure: (error: unknown) => unknown,
  heartbeatMs: number,
) {
  const encoder = new TextEncoder();
  let sent = false;
  let pending: Promise<IteratorResult<RpcResponse>> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(encoder.encode(formatSSEEvent(first)));
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const beat = new Promise<'beat'>((resolve) => {
        timer = setTimeout(() => resolve('beat'), heartbeatMs);
      });
      try {
        pending ??= rest.next();
        const next = await Promise.race([pending, beat]);
        if (next === 'beat') {
          controller.enqueue(encoder.encode(HEARTBEAT));
          return;
        }
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(failure(error))));
        controller.close();
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel() {
      await rest.return?.(undefined);
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
  });
}

/** The server of `sessions`' agent, whose card `card(request)` describes. */
export function a2aServer(
  sessions: Sessions<unknown>,
  card: (request: Request) => AgentCard,
  limits: { heartbeatMs: number; maxQueuedBytes: number },
): A2aServer {
  const { heartbeatMs, maxQueuedBytes } = limits;
  // The card without a request (its URL a placeholder unless configured): only its capabilities are read there.
  const handler: A2ARequestHandler = turnkitRequestHandler(
    sessions,
    () => card(new Request('http://turnkit.invalid/')),
    maxQueuedBytes,
  );
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);

  return {
    async card(request) {
      const served = card(request);
      if (versionOf(request) === LEGACY) {
        // The compat layer turns a 1.0 card into 0.3's shape; it reads the card from a request handler.
        const legacyCards = new LegacyRestTransportHandler({
          ...handler,
          getAuthenticatedExtendedAgentCard: async () => served,
        });
        return json(await legacyCards.getAuthenticatedExtendedAgentCard(new ServerCallContext()), {
          vary: VERSION_HEADER,
        });
      }
      return json(AgentCard.toJSON(served), { vary: VERSION_HEADER });
    },
    async rpc(request, body, call) {
      const version = versionOf(request);
      const isLegacy = version === LEGACY;
      const id = (body as { id?: unknown } | null)?.id;
      const failure = (error: unknown) => ({
        jsonrpc: '2.0',
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
        error: isLegacy
          ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
          : JsonRpcTransportHandler.mapToJSONRPCError(error),
      });
      const context = new ServerCallContext({
        requestedVersion: version,
        state: new Map([[CALL_KEY, call]]),
      });
      try {
        validateVersion(version, card(request), 'JSONRPC');
      } catch (error) {
        return json(failure(error));
      }
      const answer = (await (isLegacy ? legacy : v1).handle(body as Record<string, unknown>, context)) as Rpc;
      if (!(Symbol.asyncIterator in answer)) return json(answer);
      // The first event decides: a failure before any is a plain JSON-RPC error, as the SDK's servers answer.
      const events = answer[Symbol.asyncIterator]() as AsyncIterator<RpcResponse>;
      let first: IteratorResult<RpcResponse>;
      try {
        first = await events.next();
      } catch (error) {
        return json(failure(error));
      }
      if (first.done) return json(failure(new Error('The stream ended before its first event.')));
      return sse(first.value, events, failure, heartbeatMs);
    },
  };
}
