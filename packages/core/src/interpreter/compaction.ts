/**
 * Long runs (DESIGN §22): before a model call whose request would pass the agent's
 * `history.maxTokens`, the oldest messages are replaced by one summary. The cut never separates a
 * tool call from its results, never touches the current step (the last model message and what
 * follows it) nor a call still waiting, keeps system messages and at least `keepRecent` recent
 * messages. A compaction that fails leaves the transcript as it was and fails the turn (a retry
 * compacts again); so does a window that cannot fit even once compacted (`HISTORY_TOO_LONG`).
 * Like the budget's counts, the new transcript is written into the context directly: it is
 * bookkeeping before a model call, not a decision of the loop.
 */
import { ModelError, publicModelMessage } from '../errors.js';
import { COMPACT, withCode } from '../keys.js';
import {
  type CompactContext,
  checkHistoryOptions,
  DEFAULT_KEEP_RECENT,
  type History,
  type HistoryOptions,
} from '../tools/index.js';
import type { ChatMessage, ModelRequest, TokenCountRequest, ToolSpec } from '../types.js';
import { costOf, spendCompaction } from './budget.js';
import { emit } from './events.js';
import type { Run } from './run.js';

/** The instruction of the default compaction's model call. */
export const COMPACTION_INSTRUCTION =
  'You summarise the earlier part of a conversation between a user, an assistant and its tools, so that the assistant can go on without it. Keep every fact, decision, name, number, identifier and open question the rest of the conversation may need, and what the tools returned that still matters. Write a concise plain-text summary; do not address the user.';

/** What the summary made by the default compaction starts with. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';

/** The JSON length of each message, computed once per message object (long runs resend them all). */
const lengths = new WeakMap<object, number>();

function jsonLength(value: object): number {
  let length = lengths.get(value);
  if (length === undefined) {
    length = JSON.stringify(value).length;
    lengths.set(value, length);
  }
  return length;
}

/**
 * TurnKit's token estimate of a model request when the adapter has no `countTokens`: one token per
 * 4 characters of `JSON.stringify(messages)` plus `JSON.stringify(tools)`, rounded up.
 */
export function estimateTokens(request: TokenCountRequest): number {
  const { messages, tools } = request;
  let chars = 2 + Math.max(0, messages.length - 1);
  for (const message of messages) chars += jsonLength(message);
  return Math.ceil((chars + jsonLength(tools)) / 4);
}

/** A turn error made by a compaction, and the error behind it for `onError`. */
export interface CompactionFailure {
  error: { code: string; message: string };
  cause?: unknown;
}

/** What {@link compactHistory} came to: nothing to do, done, the turn aborted, or a failure. */
export type CompactionOutcome = 'fits' | 'compacted' | 'aborted' | CompactionFailure;

async function countTokens(run: Run, request: TokenCountRequest): Promise<number | CompactionFailure> {
  const { model } = run.agent;
  if (typeof model.countTokens !== 'function') return estimateTokens(request);
  try {
    const count = await model.countTokens(request);
    if (Number.isFinite(count) && count >= 0) return count;
    throw new TypeError(`countTokens returned ${String(count)}, not a non-negative number`);
  } catch (cause) {
    return {
      error: {
        code: 'MODEL_ERROR',
        message: `The token count of model ${model.name} failed (the error went to onError), so the history could not be checked against history.maxTokens. Fix the adapter's countTokens, then retry the turn.`,
      },
      cause,
    };
  }
}

/** The tool call ids the compaction must leave alone: the current step's and parked sub-agents'. */
function protectedCalls(run: Run): Set<string> {
  const context = run.state.context;
  const ids = new Set<string>();
  for (const call of context.step ?? []) ids.add(call.toolCallId);
  for (const parked of context.parked ?? []) ids.add(parked.toolCallId);
  return ids;
}

/**
 * Where the window may start: the largest index `cut` such that every tool call before it has its
 * result before it, no tool result at or after it belongs to a call before it, at least
 * `keepRecent` messages follow, and the last assistant message (the current step) and any
 * protected call stay after it. 0 when nothing may be compacted.
 */
export function compactionCut(
  messages: readonly ChatMessage[],
  keepRecent: number,
  keep: ReadonlySet<string> = new Set(),
): number {
  let limit = messages.length - keepRecent;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === 'assistant') {
      limit = Math.min(limit, index);
      break;
    }
  }
  let cut = 0;
  const open = new Set<string>();
  for (let index = 0; index < limit; index++) {
    const message = messages[index]!;
    if (message.role === 'assistant') {
      const calls = message.tool_calls ?? [];
      if (calls.some((call) => keep.has(call.id))) break;
      for (const call of calls) open.add(call.id);
    } else if (message.role === 'tool') {
      open.delete(message.tool_call_id);
    }
    if (open.size === 0 && messages[index + 1]?.role !== 'tool') cut = index + 1;
  }
  return cut;
}

/** The messages as one text, for the summarising call (one user message: no tool call to pair). */
function renderTranscript(messages: readonly ChatMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      lines.push(`[tool result ${message.tool_call_id}]\n${message.content}`);
    } else if (message.role === 'assistant') {
      if (message.content) lines.push(`[assistant]\n${message.content}`);
      for (const call of message.tool_calls ?? []) {
        lines.push(`[assistant calls ${call.function.name} (${call.id})]\n${call.function.arguments}`);
      }
    } else {
      lines.push(`[${message.role}]\n${message.content}`);
    }
  }
  return lines.join('\n\n');
}

/** One call of the agent's model summarising `removed`; counted in the turn's usage and the run's spend. */
async function summariseWithModel(run: Run, removed: ChatMessage[]): Promise<string | CompactionFailure> {
  const { model } = run.agent;
  const request: ModelRequest = {
    messages: [
      { role: 'system', content: COMPACTION_INSTRUCTION },
      { role: 'user', content: renderTranscript(removed) },
    ],
    tools: [],
    signal: run.options.signal,
    purpose: 'compaction',
  };
  let response: Awaited<ReturnType<typeof model.generate>>;
  try {
    response = await model.generate(request);
  } catch (cause) {
    run.usage.modelCalls++;
    const message = cause instanceof ModelError ? cause.publicMessage : publicModelMessage(undefined);
    return { error: { code: 'MODEL_ERROR', message }, cause };
  }
  run.usage.modelCalls++;
  run.usage.inputTokens += response?.usage?.inputTokens ?? 0;
  run.usage.outputTokens += response?.usage?.outputTokens ?? 0;
  if (response && typeof response === 'object') spendCompaction(run, response, costOf(run, response));
  const text = response?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') {
    return {
      error: {
        code: 'MODEL_ERROR',
        message:
          'The model returned no summary when asked to compact the history. Retry the turn; if it persists, give the agent history.compact (a function, or "drop").',
      },
    };
  }
  return `${SUMMARY_PREFIX}${text}`;
}

/** What a `compact` function returned, as one message, or why it cannot be one. */
function summaryMessage(value: unknown): ChatMessage | string {
  if (typeof value === 'string') return { role: 'user', content: value };
  const message = value as Partial<ChatMessage> | null;
  if (
    typeof message === 'object' &&
    message !== null &&
    (message.role === 'user' || message.role === 'system' || message.role === 'assistant') &&
    typeof message.content === 'string' &&
    !('tool_calls' in message && message.tool_calls !== undefined)
  ) {
    return message as ChatMessage;
  }
  return 'it returned neither a string nor a user, system or assistant message with string content and no tool calls';
}

async function summarise(
  run: Run,
  history: HistoryOptions,
  removed: ChatMessage[],
): Promise<ChatMessage | null | CompactionFailure> {
  const { compact } = history;
  if (compact === 'drop') return null;
  if (compact === undefined) {
    const text = await summariseWithModel(run, removed);
    return typeof text === 'string' ? { role: 'user', content: text } : text;
  }
  const ctx: CompactContext = {
    context: run.context,
    runId: run.runId,
    agentPath: run.agentPath,
    model: run.agent.model,
    maxTokens: history.maxTokens,
    ...(run.options.signal ? { signal: run.options.signal } : {}),
  };
  let why: string;
  let cause: unknown;
  try {
    const made = summaryMessage(await compact(removed.slice(), ctx));
    if (typeof made !== 'string') return made;
    why = made;
  } catch (error) {
    why = 'it threw (the error went to onError)';
    cause = error;
  }
  return {
    error: {
      code: 'COMPACTION_ERROR',
      message: `The history of agent ${run.agent.name} could not be compacted: its history.compact function failed (${why}). The history is unchanged; fix the function, then retry the turn.`,
    },
    ...(cause !== undefined ? { cause } : {}),
  };
}

function tooLong(run: Run, history: HistoryOptions, tokens: number, what: string): CompactionFailure {
  return {
    error: {
      code: 'HISTORY_TOO_LONG',
      message: `The model request of agent ${run.agent.name} takes ${tokens} tokens ${what}, over history.maxTokens (${history.maxTokens}). Raise maxTokens or lower keepRecent (the current step and the instructions are always kept), then retry the turn.`,
    },
  };
}

/** What the loop calls before each model call of an agent with a `history` (the code a {@link History} carries). */
export type Compactor = (run: Run, request: ModelRequest) => Promise<CompactionOutcome>;

/**
 * The `history` option of an agent (DESIGN §22): keeps each model request under `maxTokens` by
 * replacing the oldest messages with one summary. A function rather than a plain object so that the
 * compaction's code comes with it: an agent without `history` bundles none of it (DESIGN §18).
 *
 * @throws {TurnkitError} `CONFIG_INVALID` when an option could never work, naming it.
 * @example
 * const agent = defineAgent({ name: 'desk', instructions: 'Help.', model, history: compaction({ maxTokens: 8000 }) });
 */
export function compaction(options: HistoryOptions): History {
  checkHistoryOptions('compaction()', options);
  const { maxTokens, keepRecent, compact } = options;
  const history = {
    maxTokens,
    ...(keepRecent !== undefined ? { keepRecent } : {}),
    ...(compact !== undefined ? { compact } : {}),
  };
  const compactor: Compactor = compactHistory;
  return withCode(history, COMPACT, compactor) as History;
}

/**
 * Before a model call: compacts the run's transcript when `request` (built for that call) would
 * pass the agent's `history.maxTokens`. The caller rebuilds the request after `compacted`.
 */
async function compactHistory(run: Run, request: ModelRequest): Promise<CompactionOutcome> {
  const history = run.agent.history;
  if (!history) return 'fits';
  const tools: ToolSpec[] = request.tools;
  const [system, ...messages] = request.messages;
  const before = await countTokens(run, { messages: request.messages, tools });
  if (typeof before !== 'number') return before;
  if (before <= history.maxTokens) return 'fits';
  const cut = compactionCut(messages, history.keepRecent ?? DEFAULT_KEEP_RECENT, protectedCalls(run));
  const head = messages.slice(0, cut);
  const kept = head.filter((message) => message.role === 'system');
  const removed = head.filter((message) => message.role !== 'system');
  const recent = messages.slice(cut);
  const floor = await countTokens(run, { messages: [system!, ...kept, ...recent], tools });
  if (typeof floor !== 'number') return floor;
  if (removed.length === 0 || floor > history.maxTokens) {
    return tooLong(run, history, floor, 'even without the messages a compaction may remove');
  }
  const summary = await summarise(run, history, removed);
  if (run.options.signal?.aborted) return 'aborted';
  if (summary !== null && !('role' in summary)) return summary;
  const window = [...kept, ...(summary ? [summary] : []), ...recent];
  const after = await countTokens(run, { messages: [system!, ...window], tools });
  if (typeof after !== 'number') return after;
  if (after > history.maxTokens) return tooLong(run, history, after, 'with the summary');
  // The window moves forward in the full transcript by the messages cut that were in it (DESIGN §22).
  const previous = run.state.context.window ?? { from: 0, summary: 0 };
  const start = Math.max(cut, previous.summary);
  const moved = {
    from: previous.from + start - previous.summary,
    summary: window.length - (messages.length - start),
  };
  run.state = { value: run.state.value, context: { ...run.state.context, messages: window, window: moved } };
  emit(run, {
    type: 'history_compacted',
    removed: removed.length,
    kept: recent.length,
    summaryChars: summary ? (summary.content?.length ?? 0) : 0,
    tokensBefore: before,
    tokensAfter: after,
    strategy: history.compact === undefined ? 'model' : history.compact === 'drop' ? 'drop' : 'custom',
  });
  return 'compacted';
}
