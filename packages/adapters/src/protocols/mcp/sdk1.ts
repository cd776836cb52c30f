/**
 * An application `Client` of `@modelcontextprotocol/sdk` 1.x (where most MCP users are), used by
 * `mcpTools` through the part of its surface that 1.x and v2 share in meaning: `listTools`,
 * `callTool` and `getServerVersion`. It is told apart from a v2 `Client` by shape (v2 has
 * `getProtocolEra`) and is never imported: TurnKit loads no 1.x code, and a 1.x user needs no
 * `@modelcontextprotocol/client` to call tools.
 *
 * Why `callTool` and not `request` as for v2: 1.x parses results with its own zod schemas, and a v2
 * schema handed to its `request` fails (`v3Schema.safeParse is not a function`). A 1.x client speaks
 * the 2025 protocol eras, so a call never answers `input_required`: a server that asks for input
 * sends `elicitation/create` while the call is open, which the application's client answers with
 * its own handler (or refuses, and the tool fails); the run does not pause for it.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { McpCallError } from './errors.js';

/** What `mcpTools` reads of a listed tool: the fields the 1.x and v2 `Tool` types share. */
export interface McpListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

/**
 * The part of an `@modelcontextprotocol/sdk` 1.x `Client` (`@modelcontextprotocol/sdk/client/index.js`)
 * that `mcpTools` uses. Pass the client connected; it stays yours (TurnKit never closes it).
 */
export interface McpSdk1Client {
  listTools(): Promise<{ tools: McpListedTool[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  getServerVersion(): { name: string; version: string } | undefined;
  /** Absent: a v2 `Client` has it, and is called the v2 way. */
  getProtocolEra?: undefined;
}

/** Whether `source` is a 1.x `Client`: `callTool` and `listTools`, and no v2 `getProtocolEra`. */
export function isSdk1Client(source: unknown): source is McpSdk1Client {
  if (typeof source !== 'object' || source === null) return false;
  const client = source as Record<string, unknown>;
  return (
    typeof client.callTool === 'function' &&
    typeof client.listTools === 'function' &&
    typeof client.getServerVersion === 'function' &&
    typeof client.getProtocolEra !== 'function'
  );
}

/** 1.x `ErrorCode`s read here (JSON-RPC codes of its `McpError`). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** Where a failed 1.x call is reported to the model: which server, which tool, how long it may take. */
export interface Sdk1CallTarget {
  where: string;
  name: string;
  timeoutMs: number;
}

/** The message the model reads for a 1.x call that failed (`McpError` carries a numeric `code`). */
function sdk1Failure(target: Sdk1CallTarget, error: unknown): McpCallError {
  const { where, name } = target;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === REQUEST_TIMEOUT) {
    return new McpCallError(`${where} did not answer ${name} within ${target.timeoutMs} ms.`);
  }
  if (code === CONNECTION_CLOSED || /not connected|fetch failed/i.test(message)) {
    return new McpCallError(`${where} went away during the call to ${name} (${message}). Try again later.`);
  }
  if (typeof code === 'number') {
    return new McpCallError(`${where} refused the call to ${name} (${code}): ${message}`);
  }
  return new McpCallError(`The call to ${name} on ${where} failed: ${message}`);
}

/**
 * Calls the tool through the 1.x client. Its answer is a `CallToolResult`: the client validated it
 * with its own schema (which fills in `content` when a server left it out).
 */
export async function callSdk1Tool(
  client: McpSdk1Client,
  target: Sdk1CallTarget,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  try {
    return (await client.callTool({ name: target.name, arguments: args }, undefined, {
      signal,
      timeout: target.timeoutMs,
    })) as CallToolResult;
  } catch (error) {
    throw sdk1Failure(target, error);
  }
}
