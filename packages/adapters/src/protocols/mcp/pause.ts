/**
 * An MCP tool call that asks for input, as a TurnKit pause. A `tools/call` answered
 * `input_required` becomes one `ctx.ask` per elicitation, asked one after another (a form → an
 * `input` interaction with its `requestedSchema`; a URL elicitation → an approval: open the link,
 * then approve, or reject to decline). The ask state keeps only what the retry needs — the server's
 * `requestState`, its requests and the answers so far, as JSON text — so the answer may come in any
 * process: the retry goes out on whatever connection that process has, with `inputResponses` and
 * the `requestState` echoed byte for byte, and may itself ask again.
 */
import type { ElicitResult, InputRequest, InputResponses } from '@modelcontextprotocol/client';
import type { AskResponse, AskSignal, ToolContext } from '@turnkit/core';
import { z } from 'zod';
import { callMcpTool, isInputRequired, type McpCallAnswer, type McpCallTarget, toolOutput } from './call.js';
import { McpCallError } from './errors.js';

/** The ask state of a paused MCP call (kept in the snapshot). JSON text, so any key survives superjson. */
interface PausedCall {
  /** The server's `requestState`, echoed verbatim on the retry. */
  requestState?: string;
  /** `[key, request][]` of the round being answered: the elicitations, in the server's order. */
  requests: string;
  /** The answers so far (`InputResponses`), keyed as the server keyed its requests. */
  responses: string;
  /** Which of `requests` is being asked. */
  asking: number;
}

type Elicitation = Extract<InputRequest, { method: 'elicitation/create' }>;

/** Rounds of `input_required` that need no person (only a `requestState`) before giving up. */
const MAX_SILENT_ROUNDS = 10;
/** The wait before retrying a round that carried only a `requestState` (the SDK's own loop waits the same). */
const SILENT_ROUND_DELAY_MS = 250;

/** The `ctx.ask` for one elicitation. */
function askFor(ctx: ToolContext, elicitation: Elicitation, state: PausedCall): AskSignal {
  const { params } = elicitation;
  if (params.mode === 'url') {
    return ctx.ask(
      {
        approval: {
          reason: `${params.message}\nOpen ${params.url}, then approve (reject to decline).`,
          input: { url: params.url },
        },
      },
      state,
    );
  }
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(params.requestedSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new McpCallError(
      `The MCP server asked for a form TurnKit cannot read: ${(error as Error).message}`,
    );
  }
  return ctx.ask({ input: { message: params.message, schema } }, state);
}

/**
 * What a tool returns for an MCP answer: the output of a completed call, or the first `ctx.ask` of
 * an `input_required` round. Rounds that ask no person (a bare `requestState`) are retried here.
 */
export async function settle(
  target: McpCallTarget,
  args: Record<string, unknown>,
  first: McpCallAnswer,
  ctx: ToolContext,
): Promise<unknown> {
  let answer = first;
  for (let round = 0; isInputRequired(answer); round++) {
    const entries = Object.entries(answer.inputRequests ?? {});
    if (entries.length > target.maxElicitations) {
      throw new McpCallError(
        `The MCP tool ${target.name} asked for too many inputs at once: ${entries.length}, where at most ${target.maxElicitations} are accepted (mcpTools' maxElicitations). The call ends here; call it with arguments that need fewer answers, or do without it.`,
      );
    }
    for (const [key, request] of entries) {
      if (request.method !== 'elicitation/create') {
        throw new McpCallError(
          `The MCP tool ${target.name} asked for ${request.method} (${key}), which TurnKit does not provide; only elicitations are answered.`,
        );
      }
    }
    const state: PausedCall = {
      ...(answer.requestState === undefined ? {} : { requestState: answer.requestState }),
      requests: JSON.stringify(entries),
      responses: '{}',
      asking: 0,
    };
    if (entries.length > 0) return askFor(ctx, entries[0]![1] as Elicitation, state);
    if (round >= MAX_SILENT_ROUNDS) {
      throw new McpCallError(
        `The MCP tool ${target.name} kept answering input_required without asking anything.`,
      );
    }
    await delay(SILENT_ROUND_DELAY_MS, ctx.signal);
    answer = await callMcpTool(target, args, { inputResponses: {}, ...pick(state) }, ctx.signal);
  }
  return toolOutput(answer, target.maxResultBytes);
}

/** Waits `ms`, or rejects with the signal's reason once it aborts (a global timer: no Node import). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

function pick(state: PausedCall): { requestState?: string } {
  return state.requestState === undefined ? {} : { requestState: state.requestState };
}

/** The answer to one elicitation, from the person's response to its ask. */
function elicitResult(response: AskResponse): ElicitResult {
  if (response.kind === 'input')
    return { action: 'accept', content: response.value as ElicitResult['content'] };
  if (response.kind === 'approval') return { action: response.approved ? 'accept' : 'decline' };
  throw new McpCallError('An MCP elicitation was answered as a question; answer it with its form.');
}

/**
 * Continues a paused call with the person's response: asks the round's next elicitation, or, once
 * every one is answered, retries the call (any process, any connection) and settles its answer.
 */
export async function resumeCall(
  target: McpCallTarget,
  args: Record<string, unknown>,
  response: AskResponse,
  ctx: ToolContext,
): Promise<unknown> {
  const state = response.state as PausedCall;
  const requests = JSON.parse(state.requests) as [string, Elicitation][];
  const responses = JSON.parse(state.responses) as InputResponses;
  const [key] = requests[state.asking]!;
  responses[key] = elicitResult(response);
  const next = state.asking + 1;
  if (next < requests.length) {
    return askFor(ctx, requests[next]![1], { ...state, responses: JSON.stringify(responses), asking: next });
  }
  const answer = await callMcpTool(target, args, { inputResponses: responses, ...pick(state) }, ctx.signal);
  return settle(target, args, answer, ctx);
}
