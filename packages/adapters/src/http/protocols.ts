/**
 * `createHandler({ protocols: { aiSdk, agUi, mcp } })` (DESIGN §15): the standard front-end and
 * agent protocols mounted beside the handler's own routes, behind the same CORS and bearer token,
 * with the same store (so a chat id, a thread id and a run id name the same run), `authorize`
 * (asked about routes `aiSdk`, `agUi`, `mcp`), principals, body limits and problem+json errors.
 * Their finished turns publish a `state` event to the handler's event hub, as its routes do. The
 * MCP server loads the MCP SDK (an optional peer) on its first request, so a handler without it
 * never needs the package.
 */
import type { AgentEvent, TurnResult } from '@turnkit/core';
import type { Hono } from 'hono';
import { resolveOptions } from '../ag-ui/options.js';
import { agUiRoute } from '../ag-ui/route.js';
import { aiSdkMount } from '../ai-sdk/handler.js';
import type { McpServerHandler } from '../mcp/server.js';
import { authorizeRoute, unauthorizedResponse } from './auth.js';
import type { HandlerOptions } from './options.js';
import type { HandlerEnv } from './routes.js';

/** The headers an MCP client sends beside the usual ones (for CORS). */
export const MCP_HEADERS = ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id'];

/** What the mounts need from the handler. */
export interface MountDeps {
  basePath: string;
  /** The handler's `onEvent`, which also publishes to its hub. */
  onEvent(event: AgentEvent): void;
  /** A fresh `onEvent` for one request, holding a turn's events until its claim is written. */
  eventsForRequest(): (event: AgentEvent) => void;
  onError(error: unknown, request: Request, run?: { runId: string; agentPath: string[] }): void;
  /** Publishes a finished turn's state to the hub. */
  onSettled(result: TurnResult): void;
}

/** Registers the mounted protocols on `app` (after the token check, before the handler's routes). */
export function mountProtocols(app: Hono<HandlerEnv>, options: HandlerOptions, deps: MountDeps): void {
  const mounts = options.protocols;
  if (!mounts) return;
  // Token and CORS are the host's; each protocol asks `authorize` itself, knowing its run id.
  const { token: _token, cors: _cors, basePath: _base, protocols: _protocols, ...shared } = options;
  const common = { ...shared, onEvent: deps.onEvent, onError: deps.onError };

  if (mounts.aiSdk) {
    const chat = aiSdkMount(
      { ...common, basePath: `${deps.basePath}${mounts.aiSdk}` },
      { onSettled: deps.onSettled, eventsForRequest: deps.eventsForRequest },
    );
    app.all(mounts.aiSdk, (c) => chat(c.req.raw));
    app.all(`${mounts.aiSdk}/*`, (c) => chat(c.req.raw));
  }

  if (mounts.agUi) {
    const route = agUiRoute({
      ...resolveOptions(common),
      onSettled: deps.onSettled,
      eventsForRequest: deps.eventsForRequest,
    });
    app.post(mounts.agUi, (c) => route(c.req.raw));
  }

  if (mounts.mcp) {
    let server: Promise<McpServerHandler> | undefined;
    const load = () => {
      server ??= import('../mcp/server.js').then(({ mcpServer }) =>
        mcpServer(
          options.agent,
          {
            ...(options.store ? { store: options.store } : {}),
            ...(options.secret ? { secret: options.secret } : {}),
            ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
            ...(options.context ? { context: (request) => options.context!(request as Request) } : {}),
            onEvent: deps.onEvent,
            onError: (error) => deps.onError(error, new Request('http://mcp.invalid/')),
          },
          { eventsForRequest: deps.eventsForRequest },
        ),
      );
      return server;
    };
    app.all(mounts.mcp, async (c) => {
      const access = await authorizeRoute(options.authorize, c.req.raw, { name: 'mcp' }, deps.onError);
      if (!access.allowed) return unauthorizedResponse();
      const principal = access.principal;
      return (await load()).fetch(c.req.raw, principal !== undefined ? { principal } : {});
    });
  }
}
