/**
 * Where `mcpTools` gets its MCP client: a connected `Client` the application made, or one TurnKit
 * makes from `{ url }` (Streamable HTTP) or `{ command }` (stdio) with `versionNegotiation: 'auto'`,
 * so a 2026-07-28 server can answer `input_required`. A connection TurnKit made is its own to
 * manage: it is made again after its transport failed or closed (a stdio server that exited, an
 * HTTP stream that broke), and a response stream that breaks aborts the call waiting on it at once
 * instead of leaving it to a timeout (where the runtime has `AsyncLocalStorage`: see `callScope`).
 * An application's `Client` — of the v2 SDK, or of `@modelcontextprotocol/sdk` 1.x (see sdk1.ts) — is
 * used as it is and never closed. The stdio transport is Node-only (it starts a child process);
 * Streamable HTTP runs on every runtime.
 */
import type { Client, FetchLike } from '@modelcontextprotocol/client';
import { TurnkitError } from '@turnkit/core';
import { loadClientSdk } from './sdk.js';
import { isSdk1Client, type McpSdk1Client } from './sdk1.js';

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpSource {
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one); e.g. `(url, init) => handler.fetch(new Request(url, init))` in process. */
  fetch?: FetchLike;
}

/** An MCP server started as a child process, spoken to over stdio: Node-only (Node, Bun, Deno with its Node compatibility). */
export interface McpStdioSource {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * What `mcpTools` reads tools from: a connected `Client` of `@modelcontextprotocol/client` (v2) or of
 * `@modelcontextprotocol/sdk` 1.x, or how to reach a server.
 */
export type McpSource = Client | McpSdk1Client | McpHttpSource | McpStdioSource;

/** A client the application made and connected: TurnKit uses it as it is. */
type AppClient = Client | McpSdk1Client;

const CLIENT_INFO = { name: 'turnkit', version: '0.1.0' };

/** A v2 `Client` (it has `getProtocolEra`), as `openClient` makes and applications may pass. */
function isSdk2Client(source: unknown): source is Client {
  const client = source as Partial<Record<keyof Client, unknown>>;
  return (
    typeof client.request === 'function' &&
    typeof client.listTools === 'function' &&
    typeof client.getProtocolEra === 'function'
  );
}

function isClient(source: McpSource): source is AppClient {
  return isSdk2Client(source) || isSdk1Client(source);
}

/** What `source` is, for a refusal: its constructor's name and its keys, never their values. */
function shapeOf(source: unknown): string {
  if (source === null || typeof source !== 'object') return JSON.stringify(source) ?? String(source);
  const kind = (source as object).constructor?.name ?? 'object';
  return `${kind === 'Object' ? 'an object' : `a ${kind}`} with keys ${JSON.stringify(Object.keys(source).slice(0, 8))}`;
}

/**
 * Refuses, at `mcpTools(…)` time, a source that is neither a client `mcpTools` can use nor a way to
 * reach a server (e.g. a client of another SDK, a server, a transport), saying what to pass.
 */
export function checkSource(source: unknown): asserts source is McpSource {
  if (typeof source === 'object' && source !== null) {
    if (isClient(source as McpSource)) return;
    const { url, command } = source as { url?: unknown; command?: unknown };
    if (typeof url === 'string' || url instanceof URL) return;
    if (typeof command === 'string' && command !== '') return;
  }
  throw new TurnkitError(
    'CONFIG_INVALID',
    `mcpTools: source is ${shapeOf(source)}, which is not an MCP client or a way to reach a server. Pass a connected Client of @modelcontextprotocol/client (v2) or @modelcontextprotocol/sdk (1.x, from '@modelcontextprotocol/sdk/client/index.js'), or { url, headers? } (Streamable HTTP) or { command, args? } (stdio) and let TurnKit connect.`,
  );
}

/** A live connection. */
export interface McpConnection {
  /** The client, connected (again, when TurnKit made it and its transport failed). */
  client(): Promise<AppClient>;
  /**
   * Runs a call's request: when the HTTP response stream of that request breaks, `broken` aborts
   * with the reason (TurnKit-made HTTP clients only; others end by their timeout or signal).
   */
  watch<T>(broken: AbortController, request: () => Promise<T>): Promise<T>;
  /** Forgets the client after a transport failure, so the next call connects anew (TurnKit-made only). */
  drop(client: Client): void;
  close(): Promise<void>;
}

/** What `connect` needs of `AsyncLocalStorage`: a value that follows the async work started in `run`. */
interface CallScope {
  run<T>(call: AbortController, request: () => Promise<T>): Promise<T>;
  getStore(): AbortController | undefined;
}

/**
 * The runtime's `AsyncLocalStorage`, found at run time through `process.getBuiltinModule` (Node ≥
 * 20.16, Bun, Deno, Workers with `nodejs_compat`) rather than imported, so the `/mcp` subpath
 * bundles for Workers and Edge. Where there is none, a broken stream is not seen early and the call
 * ends by its timeout or signal instead.
 */
function callScope(): CallScope {
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const hooks = host?.getBuiltinModule?.('async_hooks') as
      | { AsyncLocalStorage?: new () => CallScope }
      | undefined;
    if (typeof hooks?.AsyncLocalStorage === 'function') return new hooks.AsyncLocalStorage();
  } catch {
    // A runtime that refuses the lookup has no such storage for us.
  }
  return { run: (_call, request) => request(), getStore: () => undefined };
}

/** The controller of the call whose request is being sent, for the `fetch` that sends it. */
const currentCall = callScope();

/** A description of the source for error messages, without headers or environment. */
export function describeSource(source: McpSource): string {
  if (isClient(source)) return `the MCP server ${source.getServerVersion()?.name ?? '(connected client)'}`;
  if ('url' in source) {
    const url = new URL(source.url); // origin and path only: never credentials or a query string
    return `the MCP server at ${url.origin}${url.pathname}`;
  }
  return `the MCP server started by ${JSON.stringify(source.command)}`;
}

/** Connects to `source` (or adopts the application's client). */
export async function connect(source: McpSource): Promise<McpConnection> {
  const watch = <T>(broken: AbortController, request: () => Promise<T>) => currentCall.run(broken, request);
  if (isClient(source)) {
    return { client: async () => source, watch, drop: () => {}, close: async () => {} };
  }
  let live: Client | null = null;
  const open = async () => {
    const client = await openClient(source);
    client.onclose = () => {
      if (live === client) live = null; // e.g. the stdio server exited: the next call starts it again
    };
    live = client;
    return client;
  };
  // Fails now, at definition time, when the server cannot be reached at all.
  await open();
  let opening: Promise<Client> | null = null;
  return {
    watch,
    async client() {
      if (live) return live;
      opening ??= open().finally(() => {
        opening = null;
      });
      return opening;
    },
    drop(client) {
      if (live === client) live = null;
      void client.close().catch(() => {});
    },
    async close() {
      const closing = live;
      live = null;
      await closing?.close();
    },
  };
}

/**
 * The `fetch` of an HTTP source, wrapped so that a response body that breaks mid-stream (the server
 * went away after its SSE stream opened) aborts the call that sent the request: the SDK would
 * otherwise only report it to `onerror` and let the call wait for its timeout.
 */
function watchedFetch(inner: FetchLike, where: string): FetchLike {
  return async (url, init) => {
    const call = currentCall.getStore();
    const response = await inner(url, init);
    if (!call || !response.body || init?.method !== 'POST') return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          if (!init.signal?.aborted) {
            call.abort(
              new Error(
                `${where} went away mid-call: the response stream broke (${(error as Error).message})`,
              ),
            );
          }
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function openClient(source: McpHttpSource | McpStdioSource): Promise<Client> {
  const sdk = await loadClientSdk();
  const client = new sdk.Client(CLIENT_INFO, {
    versionNegotiation: { mode: 'auto' },
    // Declared so a 2026-07-28 server may ask for input; TurnKit answers through the run, not here.
    capabilities: { elicitation: { form: {}, url: {} } },
    inputRequired: { autoFulfill: false },
  });
  let transport: Parameters<Client['connect']>[0];
  if ('url' in source) {
    transport = new sdk.StreamableHTTPClientTransport(new URL(source.url), {
      fetch: watchedFetch(source.fetch ?? ((url, init) => fetch(url, init)), describeSource(source)),
      ...(source.headers ? { requestInit: { headers: source.headers } } : {}),
    });
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    transport = new StdioClientTransport({ ...source, stderr: 'inherit' });
  }
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Could not connect to ${describeSource(source)}: ${(error as Error).message}. Check that it runs and speaks MCP.`,
      { cause: error },
    );
  }
  if (client.getProtocolEra() === 'legacy') refuseLegacyElicitation(client, source);
  return client;
}

/**
 * On a 2025-era connection a server asks for input with real `elicitation/create` requests that
 * must be answered while the call is open: a TurnKit run cannot pause there. Refusing them with a
 * clear message lets the server end the call with an error result the model can read.
 */
function refuseLegacyElicitation(client: Client, source: McpHttpSource | McpStdioSource): void {
  client.setRequestHandler('elicitation/create', async () => {
    throw new Error(
      `TurnKit cannot pause for input on a 2025-era connection to ${describeSource(source)}: the server would need protocol 2026-07-28 (input_required).`,
    );
  });
}
