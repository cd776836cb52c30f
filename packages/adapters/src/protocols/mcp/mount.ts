/**
 * `mcpProtocol()`: the agent as an MCP server (Streamable HTTP, protocol 2026-07-28) handed to
 * `createHandler({ protocols: [...] })`, at `<path>`, with the host's store, secret and event hub.
 * `authorize` is asked about route `mcp`. The server (and the MCP SDK, an optional peer) loads on
 * its first request, so a handler that mounts it never needs the package until it is used.
 */
import type { ProtocolMount, ProtocolMountOptions } from '../../http/index.js';
import {
  authorizeRoute,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_REPLAY_TTL_MS,
  readLimited,
  unauthorizedResponse,
  withKeys,
} from '../../http/index.js';
import type { McpServerHandler } from './server.js';

/** The headers an MCP client sends beside the usual ones (for CORS). */
const MCP_HEADERS = ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id'];

/**
 * Mounts the agent as one pausable MCP tool on a `createHandler`, at `path` (default `/mcp`)
 * relative to its `basePath`.
 *
 * @example
 * createHandler({ agent, store, protocols: [mcpProtocol({ path: '/mcp' })] });
 */
export function mcpProtocol(options: ProtocolMountOptions = {}): ProtocolMount {
  const path = options.path ?? '/mcp';
  return {
    name: 'mcp',
    path,
    corsHeaders: MCP_HEADERS,
    mount(app, deps) {
      const { options: host } = deps;
      // The handler's keys: its snapshots, and so the requestStates carrying them, are encrypted as its own.
      const agent = withKeys(host.agent, host.secret, host.encrypt === true);
      const secret = host.secret ?? agent.snapshot?.secret;
      const replay =
        !host.store && host.replay === 'reject' && host.replayStore
          ? { store: host.replayStore, ttlMs: host.replayTtlMs ?? DEFAULT_REPLAY_TTL_MS }
          : undefined;
      const maxBodyBytes = host.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      let server: Promise<McpServerHandler> | undefined;
      const load = () => {
        server ??= import('./server.js').then(({ mcpServer }) =>
          mcpServer(
            agent,
            {
              ...(host.store ? { store: host.store } : {}),
              ...(secret ? { secret } : {}),
              ...(host.leaseMs !== undefined ? { leaseMs: host.leaseMs } : {}),
              ...(host.context ? { context: (request) => host.context!(request as Request) } : {}),
              onEvent: deps.onEvent,
              onError: (error) => deps.onError(error, new Request('http://mcp.invalid/')),
            },
            { eventsForRequest: deps.eventsForRequest, ...(replay ? { replay } : {}) },
          ),
        );
        return server;
      };
      app.all(path, async (c) => {
        const access = await authorizeRoute(host.authorize, c.req.raw, { name: 'mcp' }, deps.onError);
        if (!access.allowed) return unauthorizedResponse();
        const principal = access.principal;
        // The SDK would read any body whole: the handler's limit is applied first (413 past it).
        const raw = c.req.raw;
        const request = raw.body
          ? new Request(raw, { body: (await readLimited(raw, maxBodyBytes)) as Uint8Array<ArrayBuffer> })
          : raw;
        return (await load()).fetch(request, principal !== undefined ? { principal } : {});
      });
    },
  };
}
