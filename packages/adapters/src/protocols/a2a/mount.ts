/**
 * `a2aProtocol({ card })`: the agent as an A2A server (DESIGN §29) handed to `createHandler({
 * protocols: [...] })` in store mode — its card at `/.well-known/agent-card.json`, JSON-RPC at
 * `<path>` (default `/a2a`), both under the handler's `basePath`, behind the handler's token, its
 * `authorize` (route `a2a`, with the task id as run id) and body limit. The SDK (an optional peer)
 * loads on the first request, so a handler never needs it before A2A is used.
 */
import { createSessions, TurnkitError, type TurnOptions } from '@turnkit/core';
import {
  authorizeRoute,
  callerPrincipal,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_QUEUED_BYTES,
  type MountDeps,
  type ProtocolMount,
  readLimited,
  unauthorizedResponse,
  withKeys,
} from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';
import { type A2aCardOptions, agentCard } from './card.js';
import type { CallInfo } from './handler.js';
import type { A2aServer } from './server.js';

/** Options of {@link a2aProtocol}. */
export interface A2aProtocolOptions {
  /** What the card says about the agent (its description at least). */
  card: A2aCardOptions;
  /** Where JSON-RPC is served, relative to the handler's `basePath` (default `/a2a`). */
  path?: string;
}

/** Where the card is served, relative to the handler's `basePath`. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** The task a JSON-RPC body is about, when it names one that could be a run id. */
function taskIdOf(body: unknown): string | undefined {
  const params = (body as { params?: { id?: unknown; message?: { taskId?: unknown } } } | null)?.params;
  const id = params?.id ?? params?.message?.taskId;
  return isSafeRunId(id) ? id : undefined;
}

/** The body as JSON, or the JSON-RPC parse error's own answer (never a 500). */
function parsed(bytes: Uint8Array): { body: unknown } | { error: Response } {
  try {
    return { body: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    const error = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'The body is not JSON.' } };
    return { error: Response.json(error) };
  }
}

function checked(options: A2aProtocolOptions): void {
  if (typeof options?.card?.description !== 'string' || options.card.description === '') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      "a2aProtocol: `card.description` must say what the agent does, e.g. a2aProtocol({ card: { description: 'Answers LN2 inventory questions.' } }).",
    );
  }
}

/**
 * Mounts the agent as an A2A server (JSON-RPC 1.0 and 0.3, with SSE streaming) on a `createHandler`
 * that has a `store`.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` without a `card.description`, and when mounted on a
 * handler without a store (a task is a stored run).
 *
 * @example
 * createHandler({ agent, store, protocols: [a2aProtocol({ card: { description: 'Answers LN2 inventory questions.' } })] });
 */
export function a2aProtocol(options: A2aProtocolOptions): ProtocolMount {
  checked(options);
  const path = options.path ?? '/a2a';
  return {
    name: 'a2a',
    path,
    corsHeaders: ['a2a-version', 'a2a-extensions', 'x-a2a-extensions'],
    mount(app, deps) {
      const { options: host } = deps;
      const store = host.store;
      if (!store) {
        throw new TurnkitError(
          'CONFIG_INVALID',
          'a2aProtocol needs createHandler with a `store`: an A2A task is a run kept in the store.',
        );
      }
      const agent = withKeys(host.agent, host.secret, host.encrypt === true);
      const sessions = createSessions({
        agent,
        store,
        ...(host.leaseMs !== undefined ? { leaseMs: host.leaseMs } : {}),
        ...(host.onInteraction ? { onInteraction: host.onInteraction } : {}),
      });
      const cardOf = (request: Request) =>
        agentCard(
          host.agent,
          options.card,
          options.card.url ?? `${new URL(request.url).origin}${deps.basePath}${path}`,
          deps.bearer,
        );
      let server: Promise<A2aServer> | undefined;
      const load = () => {
        server ??= import('./server.js').then(({ a2aServer }) =>
          a2aServer(sessions, cardOf, {
            heartbeatMs: host.heartbeatMs ?? 15_000,
            maxQueuedBytes: host.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
          }),
        );
        return server;
      };
      const allowed = (request: Request, runId?: string) =>
        authorizeRoute(
          host.authorize,
          request,
          runId ? { name: 'a2a', runId } : { name: 'a2a' },
          deps.onError,
        );

      app.get(AGENT_CARD_PATH, async (c) => {
        if (!(await allowed(c.req.raw)).allowed) return unauthorizedResponse();
        return (await load()).card(c.req.raw);
      });
      app.post(path, async (c) => {
        const request = c.req.raw;
        let bytes: Uint8Array;
        try {
          bytes = await readLimited(request, host.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        } catch (error) {
          // A body past the limit is refused after access is: a caller that may not use the route learns nothing.
          if (!(await allowed(request)).allowed) return unauthorizedResponse();
          throw error;
        }
        const body = parsed(bytes);
        const access = await allowed(request, 'body' in body ? taskIdOf(body.body) : undefined);
        if (!access.allowed) return unauthorizedResponse();
        if ('error' in body) return body.error;
        return (await load()).rpc(
          request,
          body.body,
          callInfo(request, deps, callerPrincipal(access.principal)),
        );
      });
    },
  };
}

/** What the request handler needs of this request and of the host handler. */
function callInfo(request: Request, deps: MountDeps, principal: string): CallInfo {
  const { options: host } = deps;
  return {
    turnOptions() {
      const options: TurnOptions & { onEvent: ReturnType<MountDeps['eventsForRequest']> } = {
        onEvent: deps.eventsForRequest(),
        onError: (error, run) => deps.onError(error, request, run),
        principal,
      };
      if (host.now) options.now = host.now();
      return options;
    },
    context: () => host.context?.(request),
    settled: deps.onSettled,
    report: (error) => deps.onError(error, request),
  };
}
