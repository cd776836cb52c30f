/**
 * Turns whatever the `openai` client throws into a core `ModelError` whose message says what to do,
 * or into an `AbortError` when the caller aborted, so the loop reports `aborted` and not `failed`.
 */

import { ModelError } from '@turnkit/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { credentialsPublicMessage, statusMessage } from '../model-error-text.js';

/** What the messages mention: which model, where, and how hard the client tried. */
export interface CallContext {
  model: string;
  baseURL: string;
  /** Requests sent for a retried failure: the client's maxRetries + 1. */
  attempts: number;
  timeoutMs: number;
}

/**
 * The error to throw for an aborted call: the signal's own reason when it is an `AbortError`, else
 * a new `Error` named `AbortError` (what `fetch` throws), so callers can test `error.name`.
 */
export function abortError(signal: AbortSignal, cause?: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new Error('The model call was aborted.', { cause: cause ?? reason });
  error.name = 'AbortError';
  return error;
}

/** A response that does not follow the chat-completions protocol. */
export function malformedResponse(context: CallContext, what: string, cause?: unknown): ModelError {
  return new ModelError(
    `The server at ${context.baseURL} sent a malformed chat-completions response (${what}). Check that baseURL ` +
      `points to an OpenAI-compatible API (it usually ends in /v1) and that model "${context.model}" supports chat.`,
    { cause },
  );
}

/** Maps a failure of the `openai` client (or of reading its stream) to `ModelError`; aborts stay aborts. */
export function toModelError(error: unknown, context: CallContext, signal?: AbortSignal): Error {
  if (signal?.aborted) return abortError(signal, error);
  if (error instanceof ModelError) return error;
  const tries = context.attempts === 1 ? '1 attempt' : `${context.attempts} attempts`;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError(
      `No answer from ${context.baseURL} within ${context.timeoutMs} ms (${tries}). Raise timeoutMs, or check ` +
        'that the server is up and not overloaded; then retry the turn.',
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    return new ModelError(
      `Could not reach ${context.baseURL} (${tries}): ${reason}. Check baseURL and that the server is running ` +
        'and reachable from this machine.',
      { cause: error },
    );
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const { model, baseURL } = context;
    const words = {
      who: 'The server',
      call: 'model call',
      model,
      at: '',
      tries,
      options: 'the options you pass (temperature, extraBody)',
      key: `Check OPENAI_API_KEY (or the apiKey option): it must be a valid key for ${baseURL}.`,
      notFound: `Check the model name "${model}" and the baseURL ${baseURL} (OpenAI-compatible servers usually serve /v1).`,
    };
    const publicMessage = credentialsPublicMessage(error.status);
    return new ModelError(statusMessage(error.status, error.message, words), {
      status: error.status,
      cause: error,
      ...(publicMessage ? { publicMessage } : {}),
    });
  }
  if (error instanceof SyntaxError)
    return malformedResponse(context, `unreadable JSON: ${error.message}`, error);
  const text = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model call to ${context.baseURL} failed: ${text}`, { cause: error });
}
