/**
 * Turns whatever the `openai` client throws into a core `ModelError` whose message says what to do,
 * or into an `AbortError` when the caller aborted, so the loop reports `aborted` and not `failed`.
 * The client's errors are known by the classes of the `openai` copy that made the client: a client
 * of openai 7 passed beside an openai 6 install (or of a second copy of either) throws errors that
 * are no `instanceof` this module's imports.
 */

import { ModelError } from '@turnkit/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { credentialsPublicMessage, statusMessage } from '../model-error-text.js';

/** The error classes of one copy of `openai` (each `OpenAI` class carries them as statics). */
export interface OpenAIErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status?: number };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

const IMPORTED: OpenAIErrorClasses = { APIError, APIConnectionError, APIConnectionTimeoutError };

/**
 * The error classes to test a client's failures against: those of the client's own `openai` copy
 * (the statics of its constructor, inherited by `AzureOpenAI`), and this module's import.
 */
export function errorClassesOf(client: object): OpenAIErrorClasses[] {
  const own = client.constructor as Partial<OpenAIErrorClasses> | undefined;
  if (
    typeof own?.APIError === 'function' &&
    typeof own.APIConnectionError === 'function' &&
    typeof own.APIConnectionTimeoutError === 'function' &&
    own.APIError !== APIError
  ) {
    return [own as OpenAIErrorClasses, IMPORTED];
  }
  return [IMPORTED];
}

function isA(error: unknown, classes: OpenAIErrorClasses[], kind: keyof OpenAIErrorClasses): boolean {
  return classes.some((copy) => error instanceof copy[kind]);
}

/** What the messages mention: which model, where, and how hard the client tried. */
export interface CallContext {
  model: string;
  baseURL: string;
  /** Requests sent for a retried failure: the client's maxRetries + 1. */
  attempts: number;
  timeoutMs: number;
  /** The error classes of the client's `openai` copy (and this module's). */
  errorClasses: OpenAIErrorClasses[];
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
  if (isA(error, context.errorClasses, 'APIConnectionTimeoutError')) {
    return new ModelError(
      `No answer from ${context.baseURL} within ${context.timeoutMs} ms (${tries}). Raise timeoutMs, or check ` +
        'that the server is up and not overloaded; then retry the turn.',
      { cause: error },
    );
  }
  if (isA(error, context.errorClasses, 'APIConnectionError')) {
    const cause = (error as Error).cause;
    const reason = cause instanceof Error ? cause.message : (error as Error).message;
    return new ModelError(
      `Could not reach ${context.baseURL} (${tries}): ${reason}. Check baseURL and that the server is running ` +
        'and reachable from this machine.',
      { cause: error },
    );
  }
  if (isA(error, context.errorClasses, 'APIError') && typeof (error as APIError).status === 'number') {
    const { status, message } = error as APIError & { status: number };
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
    const publicMessage = credentialsPublicMessage(status);
    return new ModelError(statusMessage(status, message, words), {
      status,
      cause: error,
      ...(publicMessage ? { publicMessage } : {}),
    });
  }
  if (error instanceof SyntaxError)
    return malformedResponse(context, `unreadable JSON: ${error.message}`, error);
  const text = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model call to ${context.baseURL} failed: ${text}`, { cause: error });
}
