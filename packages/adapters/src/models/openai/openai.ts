/**
 * `openAIModel(...)`: the ModelAdapter for OpenAI and every server speaking its Chat Completions API
 * (vLLM, Ollama, OpenRouter, LM Studio…), on the official `openai` client, major 6 or 7 (7 changed
 * nothing the adapter uses but the Node floor). Streams text deltas, assembles streamed tool-call
 * fragments, and maps failures to `ModelError`.
 */
import { randomUUID } from 'node:crypto';
import {
  type AssistantMessage,
  type ChatMessage,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ToolCall,
  TurnkitError,
} from '@turnkit/core';
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import {
  abortError,
  type CallContext,
  errorClassesOf,
  malformedResponse,
  toModelError,
} from './openai-errors.js';
import { settingsBody } from './openai-settings.js';

/**
 * The part of an `openai` client that {@link openAIModel} uses: an `OpenAI` (or `AzureOpenAI`)
 * instance of openai 6 or 7. Structural, so a client made by another copy of `openai` than the one
 * TurnKit resolves (openai 7 in the app beside a dependency's openai 6) type-checks too; `create` is
 * called with a Chat Completions body, the same in both majors.
 */
export interface OpenAIClient {
  /** Where requests go; named in error messages. */
  readonly baseURL: string;
  /** The client's retries, counted in error messages when `maxRetries` is not given. */
  readonly maxRetries: number;
  /** The client's timeout in ms, named in timeout messages when `timeoutMs` is not given. */
  readonly timeout: number;
  /** `client.chat.completions.create(body, options)`. */
  readonly chat: { readonly completions: { create(body: never, options?: never): PromiseLike<unknown> } };
}

/**
 * Options of {@link openAIModel}. Each optional one also takes `undefined`, which means the same as
 * leaving it out (its default).
 */
export interface OpenAIModelOptions {
  /** The model name, e.g. `'gpt-4.1-mini'` (or whatever your compatible server serves). */
  model: string;
  /** A client you configured yourself (`new OpenAI(…)` of openai 6 or 7); `apiKey` and `baseURL` are then ignored. */
  client?: OpenAIClient;
  /**
   * Default (also for `undefined`): the `OPENAI_API_KEY` environment variable. Local servers accept
   * any non-empty string.
   */
  apiKey?: string | undefined;
  /**
   * Default (also for `undefined`): `OPENAI_BASE_URL` or OpenAI's. For compatible servers, e.g.
   * `http://localhost:11434/v1`.
   */
  baseURL?: string | undefined;
  /** Stream the answer (deltas reach `onDelta`). Default true. */
  stream?: boolean | undefined;
  /** Default temperature; `request.settings.temperature` (the agent's or the call's) wins. */
  temperature?: number | undefined;
  /** Retries of 408/409/429/5xx and connection failures, with the client's backoff. Default: the client's (2). */
  maxRetries?: number | undefined;
  /** Per-request timeout in ms. Default: the client's (10 minutes). */
  timeoutMs?: number | undefined;
  /** Extra request-body fields (e.g. `{ max_completion_tokens: 512 }`); model, messages, tools and stream win. */
  extraBody?: Record<string, unknown>;
}

/** A tool call being assembled from stream fragments. */
interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A {@link ModelAdapter} on the official `openai` client (Chat Completions API).
 *
 * - Streaming (default): text deltas go to `onDelta` in order; tool-call fragments are assembled by
 *   their `index` (parallel calls, arguments split across chunks); usage comes from the final chunk
 *   (`stream_options.include_usage`).
 * - Failures become `ModelError` with the HTTP `status` and a message that says what to check
 *   (key, model name, baseURL, rate limits…), after the client's own retries. An aborted `signal`
 *   rejects with an error named `AbortError`, so the turn ends `aborted`, not `failed`.
 * - Tool calls come back in the OpenAI shape, arguments as the raw string the model produced.
 * - `request.settings` (the agent's `modelSettings` merged with the call's) map to `temperature`,
 *   `top_p`, `max_completion_tokens`, `tool_choice`, `parallel_tool_calls` (only with tools), `stop`,
 *   `seed`, with `providerOptions.openai` spread into the body; `request.responseFormat` (an agent's
 *   `output`) becomes `response_format: { type: 'json_schema' }`, `strict: true` when the schema fits
 *   OpenAI's strict subset (every property required, no `.min()` on strings…), else `strict: false`.
 *
 * @throws TurnkitError `CONFIG_INVALID` when no API key is given and `OPENAI_API_KEY` is unset.
 * @example
 * const model = openAIModel({ model: 'gpt-4.1-mini' });
 * const local = openAIModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 */
export function openAIModel(options: OpenAIModelOptions): ModelAdapter {
  const { model, stream = true, temperature, maxRetries, timeoutMs, extraBody } = options;
  // Typed as this package's `openai` for the calls: both majors take and return the same shapes.
  const client = (options.client as OpenAI | undefined) ?? createClient(options);
  const context: CallContext = {
    model,
    baseURL: client.baseURL,
    attempts: (maxRetries ?? client.maxRetries) + 1,
    timeoutMs: timeoutMs ?? client.timeout,
    errorClasses: errorClassesOf(client),
  };

  return {
    name: `openai:${model}`,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { signal } = request;
      if (signal?.aborted) throw abortError(signal);
      // The call's settings win over the adapter's defaults; model, messages and tools over both.
      const body: ChatCompletionCreateParamsBase = {
        ...extraBody,
        ...(temperature === undefined ? {} : { temperature }),
        ...settingsBody(request),
        model,
        messages: request.messages.map(toOpenAIMessage),
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      };
      const requestOptions = {
        ...(signal ? { signal } : {}),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      };
      const call = async () => {
        if (!stream) {
          const completion = await client.chat.completions.create({ ...body, stream: false }, requestOptions);
          return fromCompletion(completion, context);
        }
        const chunks = await client.chat.completions.create(
          { ...body, stream: true, stream_options: { include_usage: true } },
          requestOptions,
        );
        const result = await collectStream(chunks, context, request.onDelta, signal);
        // The client's stream ends quietly when aborted: a cut-off answer must not pass for a whole one.
        if (signal?.aborted) throw abortError(signal);
        return result;
      };
      try {
        return await untilAborted(call(), signal);
      } catch (error) {
        throw toModelError(error, context, signal);
      }
    },
  };
}

/**
 * Settles with the call, or rejects with an AbortError as soon as the signal aborts: the client
 * checks the signal only between attempts, so its retry backoff (seconds, with retry-after) would
 * otherwise delay the abort.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function createClient(options: OpenAIModelOptions): OpenAI {
  try {
    return new OpenAI({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const missingKey = /api.?key/i.test(reason);
    throw new TurnkitError(
      'CONFIG_INVALID',
      missingKey
        ? 'openAIModel: no API key. Set OPENAI_API_KEY or pass { apiKey } (local OpenAI-compatible servers ' +
            'accept any non-empty string).'
        : `openAIModel: the OpenAI client refused its options: ${reason}`,
      { cause: error },
    );
  }
}

/** Our messages already have the OpenAI shape; only an empty `tool_calls` array is dropped (the API refuses it). */
function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role === 'assistant') {
    const { tool_calls: toolCalls, ...rest } = message;
    return toolCalls && toolCalls.length > 0 ? { ...rest, tool_calls: toolCalls } : rest;
  }
  return message;
}

function toUsage(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined) {
  if (!usage) return undefined;
  return { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
}

function fromCompletion(completion: unknown, context: CallContext): ModelResponse {
  const choices = (completion as OpenAI.Chat.ChatCompletion | null)?.choices;
  const message = Array.isArray(choices) ? choices[0]?.message : undefined;
  if (typeof message !== 'object' || message === null) {
    throw malformedResponse(context, 'no choices');
  }
  const toolCalls: ToolCall[] = [];
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    if (call.type !== 'function' || !call.function?.name) {
      throw malformedResponse(context, `tool call ${index} has no function name`);
    }
    toolCalls.push(toolCall(call.id, call.function.name, call.function.arguments ?? ''));
  }
  const text = message.content ?? message.refusal ?? null;
  const usage = toUsage((completion as OpenAI.Chat.ChatCompletion).usage);
  return response(text, toolCalls, usage);
}

async function collectStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  context: CallContext,
  onDelta: ((text: string) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<ModelResponse> {
  let text = '';
  let sawChoice = false;
  let usage: ModelUsage | undefined;
  const partials = new Map<number, PartialToolCall>();
  for await (const chunk of chunks) {
    // The call has already rejected with an AbortError: no delta may reach the caller after that.
    if (signal?.aborted) break;
    if (chunk.usage) usage = toUsage(chunk.usage);
    // Only the first choice matters: TurnKit never asks for n > 1.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) continue;
    sawChoice = true;
    const delta = choice.delta ?? {};
    const piece = delta.content ?? delta.refusal;
    if (piece) {
      text += piece;
      onDelta?.(piece);
    }
    for (const [position, fragment] of (delta.tool_calls ?? []).entries()) {
      // Some compatible servers omit `index` when they send each call whole.
      const index = fragment.index ?? position;
      const partial = partials.get(index) ?? { id: '', name: '', arguments: '' };
      // id and name come once, in the first fragment; arguments arrive in pieces.
      if (fragment.id && !partial.id) partial.id = fragment.id;
      if (fragment.function?.name && !partial.name) partial.name = fragment.function.name;
      partial.arguments += fragment.function?.arguments ?? '';
      partials.set(index, partial);
    }
  }
  if (!sawChoice) throw malformedResponse(context, 'the stream ended without any choice');
  const toolCalls = [...partials.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, partial]) => {
      if (!partial.name) throw malformedResponse(context, `streamed tool call ${index} has no function name`);
      return toolCall(partial.id, partial.name, partial.arguments);
    });
  return response(text === '' ? null : text, toolCalls, usage);
}

/** A call without an id (some compatible servers) gets one: tool results are matched by id. */
function toolCall(id: string | undefined, name: string, args: string): ToolCall {
  return { id: id || `call_${randomUUID()}`, type: 'function', function: { name, arguments: args } };
}

function response(text: string | null, toolCalls: ToolCall[], usage: ModelUsage | undefined): ModelResponse {
  const message: AssistantMessage = {
    role: 'assistant',
    // With tool calls and no text, content is null as in the API; a text-only answer is always a string.
    content: text ?? (toolCalls.length > 0 ? null : ''),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return usage ? { message, usage } : { message };
}
