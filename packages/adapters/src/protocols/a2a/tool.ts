/**
 * `a2aAgentTool()`: a remote A2A agent as a TurnKit tool (DESIGN §29). The model's message goes to
 * the remote; its answer is the tool's result. A remote task that asks (`input-required`) pauses
 * the run on an ask built from it, holding only the remote task id in the snapshot — nothing waits
 * in memory — and the answer, given in any process, goes to that task. A task the remote ends
 * without an answer is a tool error; a remote that never answers ends with the tool's timeout. The
 * SDK's client is loaded when the tool first runs.
 */
import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { defineTool, type FunctionTool, type ToolContext, TurnkitError } from '@turnkit/core';
import { z } from 'zod';
import type { RemoteOutcome, RemoteTarget } from './remote.js';
import type { RemoteAskState } from './remote-asks.js';

/** Options of {@link a2aAgentTool}: the remote (its `url` or its `card`), and the tool's name. */
export interface A2aAgentToolOptions {
  /** The remote agent's base URL: its card is read from `<url>/.well-known/agent-card.json`. */
  url?: string;
  /** The remote agent's card (as `@a2a-js/sdk` types it), instead of `url`. */
  card?: AgentCard;
  /** The tool's name (letters, digits, `_`, `-`); default: the card's name. Required with `url`. */
  name?: string;
  /** What the model reads about the remote agent; default: the card's description. Required with `url`. */
  description?: string;
  /** Headers of every request to the remote (e.g. `{ authorization: 'Bearer …' }`). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** The longest a call (or the answer to a remote question) may wait for the remote: `tool_timeout` after it (default 120 000 ms). */
  timeoutMs?: number;
  /** Interval of `tasks/get` while a remote task is working (default 500 ms). */
  pollMs?: number;
  /**
   * A call found in doubt (its worker died after the message may have been sent, DESIGN §21):
   * `'ask'` (default) pauses for a person to decide whether to send it again; `'retry'` sends it
   * again (with the same message id, which a remote may use to deduplicate).
   */
  onInDoubt?: 'ask' | 'retry';
}

/** The tool's input: what to ask the remote agent. */
const input = z.object({
  message: z.string().min(1).describe('The request for the remote agent, in plain words.'),
});

function invalid(message: string): TurnkitError {
  return new TurnkitError('CONFIG_INVALID', `a2aAgentTool: ${message}`);
}

/** The tool's name and description, from the options or the card. */
function identity(options: A2aAgentToolOptions): { name: string; description: string } {
  if ((options.url === undefined) === (options.card === undefined)) {
    throw invalid("give the remote agent's `url` or its `card`, one of them.");
  }
  const name = options.name ?? options.card?.name.replace(/[^A-Za-z0-9_-]+/g, '_');
  const description = options.description ?? options.card?.description;
  if (!name || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw invalid(`\`name\` must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(name)}).`);
  }
  if (!description) throw invalid('`description` says what the remote agent does, for the model.');
  return { name, description };
}

/**
 * A remote A2A agent as a tool: input `{ message }`, result the remote's answer (text, or the data
 * of its artifacts). A remote question pauses the run (a question with options where the remote
 * offered some, else free text; a TurnKit remote's approvals and forms as approvals and forms);
 * remote `failed`, `rejected` or `canceled` is a tool error result.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` without exactly one of `url` and `card`, or without a
 * usable name and description.
 *
 * @example
 * const inventory = a2aAgentTool({ url: 'https://lab.example/inventory', name: 'inventory', description: 'Answers LN2 inventory questions.' });
 * const agent = defineAgent({ name: 'assistant', instructions: '…', model, tools: [inventory] });
 */
export function a2aAgentTool(options: A2aAgentToolOptions): FunctionTool<{ message: string }, unknown> {
  const { name, description } = identity(options);
  const target: RemoteTarget = {
    url: options.url,
    card: options.card,
    headers: options.headers,
    fetch: options.fetch,
    pollMs: options.pollMs ?? 500,
  };
  let client: Promise<Client> | undefined;
  const modules = () => Promise.all([import('./remote.js'), import('./remote-asks.js')]);
  async function connected(): Promise<Client> {
    const { connect } = await import('./remote.js');
    client ??= connect(target).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  }

  /** The tool's result for a remote outcome: the answer, or the ask (the call's `round`th) for what the remote asks. */
  async function settle(outcome: RemoteOutcome, ctx: ToolContext, round: number) {
    if (outcome.type === 'done') return outcome.result;
    const [, { askFor }] = await modules();
    const { request, state } = askFor(outcome.task, name, round);
    return ctx.ask(request, state);
  }

  return defineTool({
    name,
    description,
    input,
    timeoutMs: options.timeoutMs ?? 120_000,
    onInDoubt: options.onInDoubt ?? 'ask',
    execute: async ({ message }, ctx) => {
      const [{ exchange, userMessage }] = await modules();
      // Message ids come from the call's idempotency key: a message sent again is recognisable as the same.
      const request = userMessage(`turnkit:${ctx.idempotencyKey}`, { text: message });
      return settle(await exchange(await connected(), request, target, ctx.signal), ctx, 1);
    },
    resume: async (_input, response, ctx) => {
      const [{ exchange, userMessage }, { answerFor }] = await modules();
      const state = response.state as RemoteAskState;
      const body = answerFor(response, state);
      const request = userMessage(`turnkit:${ctx.idempotencyKey}:${state.round}`, body, state.taskId);
      return settle(await exchange(await connected(), request, target, ctx.signal), ctx, state.round + 1);
    },
  });
}
