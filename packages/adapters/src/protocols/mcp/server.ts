/**
 * `mcpServer(agent)`: a TurnKit agent as one MCP tool (`{ message }`), served by the SDK's
 * `createMcpHandler` as a Web-standard fetch handler. A run that pauses answers the `tools/call`
 * with `input_required` — one form elicitation per pending interaction (forms.ts) and a
 * `requestState` minted by the SDK's codec (HMAC-signed, with a TTL, bound to this tool and to the
 * caller's principal) pointing at the paused run (runs.ts). The client's retry with
 * `inputResponses` continues the run; completion answers with the agent's output as text.
 *
 * 2025-era clients: the SDK's legacy shim turns `input_required` into real `elicitation/create`
 * requests on a connection that stays open (stdio, via `createServer()`); over HTTP, the
 * handler's stateless 2025 fallback cannot send them, so a pause there ends in an error result.
 */
import type {
  CallToolResult,
  InputRequiredResult,
  McpHttpHandler,
  McpServer,
  ServerContext,
} from '@modelcontextprotocol/server';
import {
  type AgentEvent,
  type AnyAgent,
  type SnapshotStore,
  TurnkitError,
  type TurnOptions,
} from '@turnkit/core';
import { z } from 'zod';
import {
  callerPrincipal,
  forNewRun,
  HttpProblem,
  hmacSha256,
  type ReplayGuard,
  randomBytes,
} from '../../http/index.js';
import { elicitations, responsesFrom } from './forms.js';
import { clientHeldRuns, type RunKeeper, type RunOutcome, type RunPointer, storedRuns } from './runs.js';
import { loadServerSdk } from './sdk.js';

/**
 * Options of {@link mcpServer}. Each optional one also takes `undefined`, which means the same as
 * leaving it out.
 */
export interface McpServerOptions {
  /** Store mode: paused runs live here and the `requestState` carries `{ runId, version }`. */
  store?: SnapshotStore;
  /**
   * Signs `requestState` (a key derived from it; at least 32 characters). Required without a
   * store, where the paused run's snapshot travels in the `requestState`. With a store and no
   * secret (or `undefined`) a random key is used: only this process can continue its runs.
   */
  secret?: string | undefined;
  /** The MCP tool's name (default: the agent's name, with characters MCP does not allow as `_`). */
  name?: string | undefined;
  /** What the MCP client's model reads about the tool. */
  description?: string | undefined;
  /** How long a person may take to answer a pause, in seconds (default 3600): an older `requestState` is refused. */
  ttlSeconds?: number | undefined;
  /** Store mode: the claim's lease (see `createSessions`). */
  leaseMs?: number | undefined;
  /** The application `context` of a new run, from its HTTP request (none over stdio). */
  context?: (request: Request | undefined) => unknown | Promise<unknown>;
  /** Receives every event of the turns played here. */
  onEvent?: (event: AgentEvent) => void;
  /** Receives what clients must not see: server faults and failed model calls (default `console.error`). */
  onError?: (error: unknown) => void;
}

/** Per-request options of {@link McpServerHandler.fetch}. */
export interface McpFetchOptions {
  /**
   * Who makes the request (e.g. from your auth): runs and `requestState`s are bound to it.
   * `undefined` is the same as leaving it out.
   */
  principal?: string | undefined;
}

/** The agent as an MCP server. */
export interface McpServerHandler {
  /** Serves one Streamable HTTP request (protocol 2026-07-28, and 2025-era clients statelessly). */
  fetch(request: Request, options?: McpFetchOptions): Promise<Response>;
  /** A fresh SDK `McpServer` serving the agent, e.g. `serveStdio(() => handler.createServer())`. */
  createServer(): Promise<McpServer>;
  /** Ends the exchanges in flight. */
  close(): Promise<void>;
}

const MCP_NAME = /^[A-Za-z0-9._-]{1,128}$/;
const DEFAULT_TTL_SECONDS = 3600;
/** TurnKit errors whose message is written for the caller and safe to show. */
const PUBLIC_CODES = new Set([
  'SNAPSHOT_INVALID',
  'SNAPSHOT_VERSION',
  'SNAPSHOT_INCOMPATIBLE',
  'NOT_WAITING',
  'INTERACTION_NOT_FOUND',
  'RUN_NOT_FOUND',
  'SNAPSHOT_TAMPERED',
]);

function checkOptions(agent: AnyAgent, options: McpServerOptions): string {
  const fail = (message: string) => new TurnkitError('CONFIG_INVALID', `mcpServer: ${message}`);
  if (!options.store && options.secret === undefined) {
    throw fail(
      'give a `secret` (at least 32 characters) to sign the requestState that carries paused runs, or a `store`.',
    );
  }
  if (options.secret !== undefined && options.secret.length < 32) {
    throw fail('`secret` must be at least 32 characters long.');
  }
  const { ttlSeconds } = options;
  if (ttlSeconds !== undefined && !(Number.isFinite(ttlSeconds) && ttlSeconds > 0)) {
    throw fail(`ttlSeconds must be a positive number of seconds, got ${ttlSeconds}.`);
  }
  const name = options.name ?? agent.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  if (!MCP_NAME.test(name))
    throw fail(`the tool name ${JSON.stringify(name)} is not allowed: use 1 to 128 of A-Z a-z 0-9 . _ -`);
  return name;
}

type ServerSdk = Awaited<ReturnType<typeof loadServerSdk>>;
type Codec = ReturnType<ServerSdk['createRequestStateCodec']>;

const textResult = (text: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError: true } : {}),
});

/** A turn's outcome as the tool's answer. */
async function answer(
  sdk: ServerSdk,
  codec: Codec,
  { result, pointer }: RunOutcome,
  ctx: ServerContext,
  notice: string,
): Promise<CallToolResult | InputRequiredResult> {
  switch (result.status) {
    case 'completed':
      // A structured output (an agent's `output` schema) is answered as its JSON text.
      return textResult(typeof result.output === 'string' ? result.output : JSON.stringify(result.output));
    case 'needs_input':
      return sdk.inputRequired({
        inputRequests: elicitations(result.pending, notice),
        requestState: await codec.mint(pointer, ctx),
      });
    case 'running':
      // Another request is playing the run's turn: the client asks again shortly with this state.
      return sdk.inputRequired({ requestState: await codec.mint(pointer, ctx) });
    default:
      return textResult(
        `The agent's run ended ${result.status}: ${result.error?.message ?? 'no output'}.`,
        true,
      );
  }
}

/** What `createHandler`'s mount adds to an MCP server (not one of the public options). */
export interface McpMountHooks {
  /**
   * Replaces `onEvent` with one made for each tool call (an event hub holding a turn's events
   * until its claim is written, so a call that loses the race publishes nothing).
   */
  eventsForRequest?: () => (event: AgentEvent) => void;
  /** Client-held mode: the handler's `replay: 'reject'`, so one `requestState` continues a run once. */
  replay?: ReplayGuard;
}

/**
 * Serves `agent` as an MCP tool taking `{ message }`. A pause is an `input_required` answer the
 * client fulfils (its elicitation handler, or a person) and retries; nothing waits in memory.
 *
 * @example
 * const mcp = mcpServer(agent, { store: fileStore('./runs'), secret: process.env.MCP_SECRET });
 * export default { fetch: (request: Request) => mcp.fetch(request) };
 */
export function mcpServer(
  agent: AnyAgent,
  options: McpServerOptions = {},
  hooks: McpMountHooks = {},
): McpServerHandler {
  const toolName = checkOptions(agent, options);
  const runs: RunKeeper = options.store
    ? storedRuns(agent, options.store, options.leaseMs)
    : clientHeldRuns(agent, hooks.replay);
  const key = options.secret ? hmacSha256(options.secret, 'turnkit.mcp.requestState') : randomBytes(32);
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const description =
    options.description ??
    `Ask the ${agent.name} agent. It may pause to ask you questions or to have a tool call approved.`;

  async function call(sdk: ServerSdk, codec: Codec, message: string, ctx: ServerContext) {
    const principal = ctx.http?.authInfo?.clientId || undefined;
    // Not `ctx.mcpReq.signal`: a client that goes away does not stop the turn, which ends and is
    // kept (store mode), rather than leaving a run aborted that no requestState points at.
    const onEvent = hooks.eventsForRequest?.() ?? options.onEvent;
    const turn: TurnOptions = {
      onError: (error) => onError(error),
      ...(onEvent ? { onEvent } : {}),
      principal: callerPrincipal(principal),
    };
    try {
      const pointer = ctx.mcpReq.requestState<RunPointer>();
      if (pointer === undefined) {
        const context = options.context ? await options.context(ctx.http?.req) : undefined;
        return await answer(sdk, codec, await runs.start({ message, context }, forNewRun(turn)), ctx, '');
      }
      const responses = ctx.mcpReq.inputResponses;
      try {
        return await answer(
          sdk,
          codec,
          await runs.continue(pointer, (p) => responsesFrom(p, responses), turn),
          ctx,
          '',
        );
      } catch (error) {
        if (!(TurnkitError.isInstance(error) && error.code === 'ANSWER_INVALID')) throw error;
        // Asked again, saying what was wrong: nothing changed.
        const notice = `Your answer was not accepted:\n${error.message}\n\n`;
        return await answer(sdk, codec, await runs.continue(pointer, () => [], turn), ctx, notice);
      }
    } catch (error) {
      // A replayed requestState (HttpProblem CONFLICT) is told to the caller like core's refusals.
      if ((TurnkitError.isInstance(error) && PUBLIC_CODES.has(error.code)) || error instanceof HttpProblem)
        return textResult(error.message, true);
      onError(error);
      return textResult('The agent could not run: an internal error occurred.', true);
    }
  }

  let ready: Promise<{ build: () => McpServer; handler: McpHttpHandler }> | undefined;
  const setup = () => {
    ready ??= loadServerSdk().then((sdk) => {
      const codec = sdk.createRequestStateCodec<RunPointer>({
        key,
        ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
        bind: (ctx) => `${ctx.mcpReq.method}\0${toolName}\0${ctx.http?.authInfo?.clientId ?? ''}`,
      });
      const build = () => {
        const server = new sdk.McpServer(
          { name: toolName, version: agent.version || '0.0.0' },
          { capabilities: { tools: {} }, requestState: { verify: codec.verify } },
        );
        server.registerTool(
          toolName,
          {
            description,
            inputSchema: z.object({ message: z.string().min(1).describe('What to ask the agent') }),
          },
          ({ message }, ctx) => call(sdk, codec, message, ctx),
        );
        return server;
      };
      return { build, handler: sdk.createMcpHandler(build, { onerror: onError }) };
    });
    return ready;
  };

  return {
    async fetch(request, fetchOptions = {}) {
      const { handler } = await setup();
      const { principal } = fetchOptions;
      return handler.fetch(
        request,
        principal === undefined ? undefined : { authInfo: { token: '', clientId: principal, scopes: [] } },
      );
    },
    async createServer() {
      return (await setup()).build();
    },
    async close() {
      if (ready) await (await ready).handler.close();
    },
  };
}
