/**
 * One MCP `tools/call` as a TurnKit tool runs it: the request (always with `allowInputRequired`, so
 * an `input_required` answer reaches TurnKit whatever the client's auto-fulfilment), its failures
 * turned into messages the model can act on, and its result turned into the tool's output — an
 * `isError` result throws, so the model reads a `tool_error`.
 */
import type {
  CallToolResult,
  Client,
  InputRequiredResult,
  InputResponses,
} from '@modelcontextprotocol/client';
import { describeSource, type McpConnection, type McpSource } from './connect.js';
import { McpCallError } from './errors.js';
import { loadClientSdk } from './sdk.js';
import { callSdk1Tool, isSdk1Client, type McpSdk1Client } from './sdk1.js';

/** How a tool reaches its MCP tool. */
export interface McpCallTarget {
  connection: McpConnection;
  source: McpSource;
  /** The tool's name on the MCP server. */
  name: string;
  /** A call that has not answered after this long fails (the SDK's timeout, per request). */
  timeoutMs: number;
  /** The most UTF-8 bytes of a result the model reads; the rest is cut with a note. */
  maxResultBytes: number;
  /** The most elicitations one `input_required` answer may carry. */
  maxElicitations: number;
}

/** What a retry adds to the first call's parameters. */
export interface McpRetry {
  inputResponses: InputResponses;
  requestState?: string;
}

/** The answer to a `tools/call`: a result, or a request for more input. */
export type McpCallAnswer = CallToolResult | InputRequiredResult;

function isTransportFailure(error: unknown, sdk: Awaited<ReturnType<typeof loadClientSdk>>): boolean {
  if (error instanceof TypeError) return true; // fetch failed: the socket closed before an answer
  if (sdk.SdkError.isInstance(error)) {
    return ['CONNECTION_CLOSED', 'NOT_CONNECTED', 'SEND_FAILED'].includes(error.code);
  }
  return error instanceof Error && /not connected/i.test(error.message);
}

/** The error whose message the model reads for a failed call. */
function failure(
  target: McpCallTarget,
  error: unknown,
  broken: AbortSignal,
  sdk: Awaited<ReturnType<typeof loadClientSdk>>,
): McpCallError {
  const where = describeSource(target.source);
  if (broken.aborted) return new McpCallError(String((broken.reason as Error).message));
  if (sdk.ProtocolError.isInstance(error)) {
    const data = error.data as { reason?: string } | undefined;
    if (data?.reason === 'invalid_request_state') {
      return new McpCallError(
        `${where} no longer accepts this answer (its requestState expired or was refused). Call the tool again to start over.`,
      );
    }
    return new McpCallError(`${where} refused the call to ${target.name} (${error.code}): ${error.message}`);
  }
  if (sdk.SdkError.isInstance(error) && error.code === 'REQUEST_TIMEOUT') {
    return new McpCallError(`${where} did not answer ${target.name} within ${target.timeoutMs} ms.`);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isTransportFailure(error, sdk)) {
    return new McpCallError(
      `${where} went away during the call to ${target.name} (${message}). Try again later.`,
    );
  }
  return new McpCallError(`The call to ${target.name} on ${where} failed: ${message}`);
}

/**
 * Calls the MCP tool (a first call, or a retry with the answers and the echoed `requestState`).
 * Never waits longer than `timeoutMs`, and stops at once when `signal` aborts or the connection's
 * response stream breaks.
 */
export async function callMcpTool(
  target: McpCallTarget,
  args: Record<string, unknown>,
  retry: McpRetry | undefined,
  signal: AbortSignal,
): Promise<McpCallAnswer> {
  let client: Client | McpSdk1Client;
  try {
    client = await target.connection.client();
  } catch (error) {
    throw new McpCallError(
      `${describeSource(target.source)} cannot be reached (${(error as Error).message}). Try again later.`,
    );
  }
  // An application's 1.x client: its own callTool, and no v2 SDK loaded (its user may not have it).
  if (isSdk1Client(client)) {
    const where = describeSource(target.source);
    return callSdk1Tool(client, { where, name: target.name, timeoutMs: target.timeoutMs }, args, signal);
  }
  const sdk = await loadClientSdk();
  const broken = new AbortController();
  try {
    return await target.connection.watch(broken, () =>
      client.request(
        { method: 'tools/call', params: { name: target.name, arguments: args, ...retry } },
        sdk.withInputRequired(sdk.specTypeSchemas.CallToolResult),
        {
          allowInputRequired: true,
          signal: AbortSignal.any([signal, broken.signal]),
          timeout: target.timeoutMs,
        },
      ),
    );
  } catch (error) {
    if (broken.signal.aborted || isTransportFailure(error, sdk)) target.connection.drop(client);
    throw failure(target, error, broken.signal, sdk);
  }
}

/** Whether the answer asks for more input (2026-07-28 `input_required`). */
export function isInputRequired(answer: McpCallAnswer): answer is InputRequiredResult {
  return (answer as { resultType?: unknown }).resultType === 'input_required';
}

/** A content block as the model reads it: text as is, binary data named, never pasted in base64. */
function blockText(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.ceil((block.data.length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[resource ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}, binary]`;
    default:
      return JSON.stringify(block);
  }
}

/**
 * `text` as is when its UTF-8 form fits in `maxBytes`; else its first `maxBytes` bytes (whole
 * characters only) and a note telling the model the result was cut, how big it was, and to ask for
 * less — so one huge result cannot fill the transcript (and every later model request).
 */
function capText(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text; // no UTF-16 unit takes more than 3 UTF-8 bytes
  const encoder = new TextEncoder();
  // encodeInto writes whole characters only, so `read` ends on a character boundary.
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes));
  if (read === text.length) return text;
  const size = encoder.encode(text).byteLength;
  return `${text.slice(0, read)}\n\n[Truncated by TurnKit: this result was ${size} bytes; only its first ${maxBytes} bytes are shown. Ask for less (a narrower query, fewer items, a page or a range) to see the rest.]`;
}

/**
 * The tool's output for a completed call: its `structuredContent` when it has one (the model reads
 * it as JSON), else its content as text. An `isError` result throws its text. Output over
 * `maxBytes` becomes its text cut by {@link capText}.
 */
export function toolOutput(result: CallToolResult, maxBytes: number): unknown {
  const text = (result.content ?? []).map(blockText).join('\n');
  if (result.isError) {
    throw new McpCallError(capText(text || 'the MCP tool reported an error without a message', maxBytes));
  }
  if (result.structuredContent === undefined) return capText(text, maxBytes);
  const json = JSON.stringify(result.structuredContent);
  const capped = capText(json, maxBytes);
  return capped === json ? result.structuredContent : capped;
}
