/**
 * What `aiSdkModel` makes of a failed provider call: a core `ModelError` whose `message` says what
 * to check (the provider's own text, the URL, the model id: for operators) and whose
 * `publicMessage` names only the status class (DESIGN §13); an `AbortError` when the caller
 * aborted, so the turn ends `aborted`; and whether, and when, the call may be tried again.
 * AI SDK errors are recognised by their `Symbol.for` marker, as the SDK's own `isInstance` does, so
 * nothing here loads `@ai-sdk/provider` at run time.
 */

import { ModelError } from '@turnkit/core';
import {
  clause,
  credentialsPublicMessage,
  NO_KEY_PUBLIC_MESSAGE,
  statusMessage,
} from '../model-error-text.js';
import { StreamEndedError, StreamPartError } from './model-stream.js';

/** Which model failed, and how hard the adapter tried: what the messages mention. */
export interface ModelCallContext {
  provider: string;
  modelId: string;
  attempts: number;
}

/** The fields of the AI SDK's `APICallError` that matter here. */
interface ApiCallErrorLike extends Error {
  url: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  isRetryable: boolean;
}

const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');
const AI_SDK_ERROR = Symbol.for('vercel.ai.error');
/** Thrown by a provider before any request when it finds no API key (option or environment). */
const LOAD_API_KEY_ERROR = Symbol.for('vercel.ai.error.AI_LoadAPIKeyError');

function hasMarker(error: unknown, marker: symbol): error is Error {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/** `APICallError.isInstance`, without importing the class. */
export function isApiCallError(error: unknown): error is ApiCallErrorLike {
  return hasMarker(error, API_CALL_ERROR);
}

/**
 * Error types providers put in a stream's `error` part (Anthropic's, OpenAI's), as the HTTP status
 * they stand for, so an in-stream failure is classified like the same failure before the stream.
 */
const STREAM_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

function streamError(error: unknown): { type?: string; status?: number; text: string } {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const type = typeof record.type === 'string' ? record.type : undefined;
  const text =
    typeof record.message === 'string'
      ? record.message
      : error instanceof Error
        ? error.message
        : (JSON.stringify(error) ?? String(error));
  const status = type === undefined ? undefined : STREAM_ERROR_STATUS[type];
  return { ...(type === undefined ? {} : { type }), ...(status === undefined ? {} : { status }), text };
}

/**
 * The error to throw for an aborted call: the signal's reason when it is an `AbortError`, else a
 * new `Error` named `AbortError` (what `fetch` throws), so callers can test `error.name`.
 */
export function abortError(signal: AbortSignal, cause?: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return Object.assign(new Error('The model call was aborted.', { cause: cause ?? reason }), {
    name: 'AbortError',
  });
}

/** Whether a failure may be sent again: the provider says so (429, 5xx, a lost connection), and no text was shown yet. */
export function isRetryable(error: unknown): boolean {
  if (isApiCallError(error)) return error.isRetryable;
  if (error instanceof StreamEndedError) return true;
  if (error instanceof StreamPartError) {
    const { status } = streamError(error.error);
    return status !== undefined && (status === 429 || status >= 500);
  }
  return false;
}

/** The server's `retry-after-ms` / `retry-after` when it asks for at most a minute, else backoff with jitter. */
export function retryDelayMs(error: unknown, retry: number): number {
  const headers = isApiCallError(error) ? error.responseHeaders : undefined;
  const asked = headers ? retryAfterMs(headers) : undefined;
  if (asked !== undefined && asked >= 0 && asked <= 60_000) return asked;
  return Math.min(8000, 500 * 2 ** retry) * (1 - Math.random() * 0.25);
}

function retryAfterMs(headers: Record<string, string>): number | undefined {
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms)) return ms;
  const after = headers['retry-after'];
  if (after === undefined) return undefined;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - Date.now();
}

/** Maps whatever a provider call threw to `ModelError`; aborts stay aborts. */
export function toModelError(error: unknown, context: ModelCallContext, signal?: AbortSignal): Error {
  if (signal?.aborted) return abortError(signal, error);
  if (error instanceof ModelError) return error;
  const { provider, modelId } = context;
  const tries = context.attempts === 1 ? '1 attempt' : `${context.attempts} attempts`;
  if (isApiCallError(error)) {
    if (error.statusCode === undefined) {
      return new ModelError(
        `Could not reach ${error.url} (${provider}, ${tries}): ${clause(error.message)}. Check the provider's baseURL ` +
          'and that the server is running and reachable from this machine.',
        { cause: error },
      );
    }
    const status = error.statusCode;
    const words = {
      who: provider,
      call: `${provider} call`,
      model: modelId,
      at: ` at ${error.url}`,
      tries,
      options: 'the call settings you pass (maxOutputTokens, providerOptions…)',
      key: `Check the key you gave the ${provider} provider (its apiKey option or its environment variable).`,
      notFound: `Check the model id "${modelId}" and the provider's baseURL.`,
    };
    const publicMessage = credentialsPublicMessage(status);
    return new ModelError(statusMessage(status, error.message, words), {
      status,
      cause: error,
      ...(publicMessage ? { publicMessage } : {}),
    });
  }
  if (hasMarker(error, LOAD_API_KEY_ERROR)) {
    return new ModelError(
      `The ${provider} provider has no API key for model "${modelId}": ${clause(error.message)}. Pass apiKey ` +
        'when you create the provider, or set the environment variable it names.',
      { cause: error, publicMessage: NO_KEY_PUBLIC_MESSAGE },
    );
  }
  if (error instanceof StreamPartError) {
    const { type, status, text } = streamError(error.error);
    const what = `${provider} reported an error in the stream${type ? ` (${type})` : ''} for model "${modelId}": ${clause(text)}.`;
    const next =
      status !== undefined && (status === 429 || status >= 500)
        ? ` Tried ${tries}; retry the turn later.`
        : '';
    return new ModelError(what + next, { ...(status === undefined ? {} : { status }), cause: error });
  }
  if (error instanceof StreamEndedError) {
    return new ModelError(
      `The ${provider} stream for model "${modelId}" ended before its finish (${tries}): the connection was ` +
        'probably cut. Retry the turn.',
      { cause: error },
    );
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new ModelError(
      `The ${provider} call for model "${modelId}" was aborted by a timeout of the provider or its fetch: ` +
        `${clause(error.message)}. Raise the timeout you gave the provider, or retry the turn.`,
      { cause: error },
    );
  }
  const text = error instanceof Error ? error.message : String(error);
  const kind = hasMarker(error, AI_SDK_ERROR) ? ` (${error.name})` : '';
  return new ModelError(
    `The ${provider} call for model "${modelId}" failed${kind}: ${clause(text)}. Check that the provider package ` +
      'implements provider spec v3 or v4 (AI SDK 6 or 7) and that its settings are valid.',
    { cause: error },
  );
}
