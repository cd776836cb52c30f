/**
 * The `history` option of an agent (DESIGN §22): when the model request would pass `maxTokens`,
 * the oldest messages are replaced by one summary. The option is made by `compaction({...})`, a
 * value that carries the compaction's code, so a program that never compacts bundles none of it
 * (DESIGN §18's size budget); `defineAgent` refuses a plain object.
 */
import { TurnkitError } from '../errors.js';
import { COMPACT, carries } from '../keys.js';
import type { ChatMessage, ModelAdapter } from '../types.js';

/** How many of the most recent messages a compaction keeps as they are, when `keepRecent` is not given. */
export const DEFAULT_KEEP_RECENT = 6;

/** What a `compact` function receives besides the messages it summarises. */
export interface CompactContext {
  /** The run's application context. */
  context: unknown;
  runId: string;
  /** Where it runs: the agent's name, and for a sub-agent its parents' names first. */
  agentPath: string[];
  /** The agent's model, to summarise with (the default compaction makes one call of it). */
  model: ModelAdapter;
  /** The agent's `history.maxTokens`. */
  maxTokens: number;
  /** Aborted when the turn is aborted. */
  signal?: AbortSignal;
}

/**
 * Summarises the messages a compaction removes: returns the summary as text (it becomes one `user`
 * message) or as a whole {@link ChatMessage} (not a `tool` message, nor an assistant message with
 * tool calls). Throwing fails the turn with `COMPACTION_ERROR`, the history untouched.
 */
export type CompactFunction = (
  messages: ChatMessage[],
  ctx: CompactContext,
) => string | ChatMessage | Promise<string | ChatMessage>;

/**
 * What `compaction({...})` takes: keeps the model's window of a long run under `maxTokens`.
 *
 * @example
 * const agent = defineAgent({ name: 'desk', instructions: 'Help.', model, history: compaction({ maxTokens: 8000 }) });
 */
export interface HistoryOptions {
  /**
   * The most tokens a model request (instructions, messages and tools) may take: before a call that
   * would pass it, the oldest messages are compacted. Counted with the model's `countTokens` when
   * it has one, else estimated as one token per 4 characters of JSON.
   */
  maxTokens: number;
  /**
   * How many of the most recent messages a compaction always keeps as they are (default
   * {@link DEFAULT_KEEP_RECENT}). More are kept when needed to keep a tool call with its results,
   * and the last model message with its results (the current step) is never compacted.
   */
  keepRecent?: number;
  /**
   * How the removed messages are summarised: by default one call of the agent's model with a
   * summarising instruction (its tokens count in the turn's usage and the run's budget); `'drop'`
   * drops them without a summary; or a function of your own.
   */
  compact?: 'drop' | CompactFunction;
}

/**
 * The `history` option of `defineAgent`, made by `compaction({...})`: its options, read-only, and
 * the compaction's code under an internal key.
 */
export interface History extends Readonly<HistoryOptions> {
  /** The compaction itself (internal: TurnKit calls it before each model call). */
  readonly [COMPACT]: (...args: never[]) => unknown;
}

/** Refuses a `history` option not made by `compaction({...})`, saying how to make one. */
export function checkHistory(where: string, history: unknown): void {
  if (carries(history, COMPACT)) return;
  throw new TurnkitError(
    'CONFIG_INVALID',
    `${where}: history must be made by compaction({ maxTokens, keepRecent?, compact? }) from @turnkit/core (wrap a plain object in it). The value carries the compaction's code, so an agent that never compacts bundles none of it.`,
  );
}

/** Refuses `compaction()` options no run could use, naming the field. */
export function checkHistoryOptions(where: string, history: unknown): void {
  const fail = (what: string) => {
    throw new TurnkitError('CONFIG_INVALID', `${where}: ${what}`);
  };
  if (typeof history !== 'object' || history === null) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: the options must be an object { maxTokens, keepRecent?, compact? }.`,
    );
  }
  const { maxTokens, keepRecent, compact } = history as Partial<HistoryOptions>;
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    fail('maxTokens must be a positive integer (the most tokens a model request may take).');
  }
  if (keepRecent !== undefined && (!Number.isSafeInteger(keepRecent) || (keepRecent as number) < 0)) {
    fail('keepRecent must be a non-negative integer (how many recent messages a compaction keeps).');
  }
  if (compact !== undefined && compact !== 'drop' && typeof compact !== 'function') {
    fail(
      "compact must be 'drop' or a function (messages, ctx) => summary; leave it out to summarise with the model.",
    );
  }
}
