/**
 * `mcpTools(source)`: the tools of an MCP server as TurnKit function tools. Each MCP tool becomes a
 * tool whose name follows TurnKit's rule (see names.ts), whose parameters are the server's input
 * JSON Schema exactly as listed (zod's `fromJSONSchema` of it only validates the model's arguments),
 * and whose call may pause the run when the server answers `input_required` (see pause.ts).
 */
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { defineTool, type FunctionTool, hashSchema, type ToolContext, TurnkitError } from '@turnkit/core';
import { z } from 'zod';
import { checkCount } from '../../events/index.js';
import type { McpCallTarget } from './call.js';
import { callMcpTool } from './call.js';
import { checkSource, connect, type McpConnection, type McpSource } from './connect.js';
import { mapToolNames } from './names.js';
import { resumeCall, settle } from './pause.js';

/** One call of an MCP tool, as `needsApproval` sees it. */
export interface McpToolCall {
  /** The tool's name on the MCP server. */
  tool: string;
  input: Record<string, unknown>;
}

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** Which MCP tools to offer, by their MCP name or a predicate on the listed tool (default: all). */
  include?: readonly string[] | ((tool: McpTool) => boolean);
  /**
   * Which calls need a person's approval first: all (`true`), those of the MCP tools named, or a
   * decision per call (a string means yes, and is the reason shown).
   */
  needsApproval?:
    | boolean
    | readonly string[]
    | ((call: McpToolCall) => boolean | string | Promise<boolean | string>);
  /** Put in front of every TurnKit name (letters, digits, `_`, `-`), e.g. `github_`, to keep servers apart. */
  prefix?: string | undefined;
  /** A call (each request of it) fails after this long without an answer (default 60 000 ms). */
  timeoutMs?: number | undefined;
  /**
   * The most a result may put in the transcript, in UTF-8 bytes of the text the model reads (a
   * `structuredContent` result: its JSON). A larger one is cut there, on a character boundary, and
   * ends with a note telling the model it was truncated, how big it was, and to ask for less. A
   * positive integer (default 1 MiB: 1 048 576).
   */
  maxResultBytes?: number | undefined;
  /**
   * The most elicitations one `input_required` answer may ask at once. A server asking more ends
   * the call with a `tool_error` saying so, and the run does not pause. A positive integer
   * (default 16).
   */
  maxElicitations?: number | undefined;
}

/** An MCP tool as a TurnKit tool: its input is the object the server's schema describes. */
export type McpFunctionTool = FunctionTool<Record<string, unknown>, unknown>;

/** The tools of an MCP server, plus what `mcpTools` knows about them. */
export interface McpTools extends Array<McpFunctionTool> {
  /** MCP tool name → TurnKit tool name, for every tool offered. */
  readonly names: ReadonlyMap<string, string>;
  /** Closes the connection TurnKit made (a client you passed in stays open: it is yours). */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
const DEFAULT_MAX_ELICITATIONS = 16;
const ANY_OBJECT = z.record(z.string(), z.unknown());

/** The schema without `$schema` (the model does not need it), and the validator of the model's arguments. */
function schemas(tool: McpTool): {
  parameters: Record<string, unknown>;
  input: z.ZodType<Record<string, unknown>>;
} {
  const { $schema: _drop, ...parameters } = tool.inputSchema as Record<string, unknown>;
  try {
    const input = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
    z.toJSONSchema(input, { io: 'input' }); // defineTool needs this to work; a schema zod cannot express is checked by the server alone
    return { parameters, input: input as z.ZodType<Record<string, unknown>> };
  } catch {
    return { parameters, input: ANY_OBJECT };
  }
}

function approvalOf(options: McpToolsOptions, mcpName: string): McpFunctionTool['needsApproval'] {
  const { needsApproval } = options;
  if (typeof needsApproval === 'function') {
    return (input: Record<string, unknown>) => needsApproval({ tool: mcpName, input });
  }
  if (Array.isArray(needsApproval)) return needsApproval.includes(mcpName);
  return needsApproval === true;
}

function toTool(
  tool: McpTool,
  name: string,
  target: McpCallTarget,
  options: McpToolsOptions,
): McpFunctionTool {
  const { parameters, input } = schemas(tool);
  const defined = defineTool<Record<string, unknown>, unknown>({
    name,
    description: tool.description ?? tool.title ?? `The MCP tool ${tool.name}.`,
    input,
    needsApproval: approvalOf(options, tool.name),
    timeoutMs: target.timeoutMs,
    execute: async (args, ctx) =>
      settle(target, args, await callMcpTool(target, args, undefined, ctx.signal), ctx as ToolContext),
    resume: async (args, response, ctx) => resumeCall(target, args, response, ctx as ToolContext),
  });
  // The model is offered the server's schema as given, not zod's rendering of it.
  const spec = { ...defined.spec, function: { ...defined.spec.function, parameters } };
  return { ...defined, spec, schemaHash: hashSchema(parameters) };
}

function included(options: McpToolsOptions, tool: McpTool): boolean {
  const { include } = options;
  if (include === undefined) return true;
  return typeof include === 'function' ? include(tool) : include.includes(tool.name);
}

function checkOptions(options: McpToolsOptions): void {
  if (options.prefix !== undefined && !/^[A-Za-z0-9_-]{0,48}$/.test(options.prefix)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `mcpTools: prefix ${JSON.stringify(options.prefix)} is not allowed: use up to 48 letters, digits, '_' or '-'.`,
    );
  }
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `mcpTools: timeoutMs must be a positive number of milliseconds, got ${timeoutMs}.`,
    );
  }
  checkCount(options.maxResultBytes, 'maxResultBytes', 'mcpTools');
  checkCount(options.maxElicitations, 'maxElicitations', 'mcpTools');
}

/**
 * The tools of an MCP server as TurnKit tools. `source` is a connected `Client` of
 * `@modelcontextprotocol/client` (v2) or of `@modelcontextprotocol/sdk` 1.x, or how to reach the
 * server: `{ url, headers? }` (Streamable HTTP) or `{ command, args? }` (stdio), from which TurnKit
 * makes a v2 client that negotiates protocol 2026-07-28 when the server speaks it. Anything else is
 * refused at once with `CONFIG_INVALID`.
 *
 * A call the server answers `input_required` pauses the run with an `input` interaction per
 * elicitation; the answer (in any process) retries the call with the server's `requestState`. On
 * a 2025-era connection the tools work but cannot pause: a server asking for input there gets a
 * refusal and answers with an error the model reads. A 1.x `Client` always speaks a 2025 era: its
 * tools work, and a server's request for input goes to the client's own elicitation handler (none:
 * the server is refused), never pausing the run.
 *
 * Node only with `{ command }` (stdio): it spawns the server as a child process
 * (`node:child_process`); `{ url }` (Streamable HTTP) and a connected `Client` spawn nothing.
 *
 * @example
 * const github = await mcpTools({ url: 'https://mcp.example/mcp', headers: { Authorization: `Bearer ${key}` } });
 * const agent = defineAgent({ name: 'dev', instructions: '…', model, tools: [...github] });
 */
export async function mcpTools(source: McpSource, options: McpToolsOptions = {}): Promise<McpTools> {
  checkSource(source);
  checkOptions(options);
  const connection: McpConnection = await connect(source);
  let listed: McpTool[];
  try {
    // A 1.x client lists the same fields (its `Tool` type is another declaration of the same spec).
    const { tools } = (await (await connection.client()).listTools()) as { tools: McpTool[] };
    listed = tools.filter((tool) => included(options, tool));
  } catch (error) {
    await connection.close();
    throw new TurnkitError(
      'CONFIG_INVALID',
      `mcpTools: listing the tools failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const names = mapToolNames(
    listed.map((tool) => tool.name),
    options.prefix,
  );
  const limits = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxResultBytes: options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    maxElicitations: options.maxElicitations ?? DEFAULT_MAX_ELICITATIONS,
  };
  const tools = listed.map((tool) =>
    toTool(tool, names.get(tool.name)!, { connection, source, name: tool.name, ...limits }, options),
  );
  return Object.assign(tools, {
    names: names as ReadonlyMap<string, string>,
    close: () => connection.close(),
  });
}
