/**
 * A failed model call as one line for the person running the demo (its `onError`), instead of a
 * stack: which model, what the provider said, and for a refused key, which variable to check.
 * `aiSdkModel` already made the failure a `ModelError` with the HTTP status and an operator's
 * message (the provider's text, the URL); this only folds it into one line.
 */
import { type ModelError, TurnkitError } from '@turnkit/core';
import type { ModelChoice } from './choose.js';

/** Text on one line: runs of whitespace (newlines included) become one space. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The provider's own words, when the failure carries them (an AI SDK `APICallError`). */
function providerText(error: ModelError): string | undefined {
  const cause = error.cause as { message?: unknown } | undefined;
  if (typeof cause?.message !== 'string') return undefined;
  // Without its closing full stop: the line goes on after it.
  const text = oneLine(cause.message).replace(/\.+$/, '');
  return text === '' ? undefined : text;
}

/**
 * One line about a failed call of `choice`'s model, or null when `error` is not a model failure
 * (the caller reports it as it would any other error).
 */
export function describeModelFailure(
  error: unknown,
  choice: Pick<ModelChoice, 'spec' | 'keyVariable'>,
): string | null {
  if (!TurnkitError.isInstance(error) || error.code !== 'MODEL_ERROR') return null;
  const failure = error as ModelError;
  if (failure.status === 401 || failure.status === 403) {
    const said = providerText(failure);
    return `${choice.spec}: the provider refused the key in ${choice.keyVariable} (${failure.status})${said ? `: ${said}` : ''}. Check ${choice.keyVariable}.`;
  }
  return `${choice.spec}: ${oneLine(failure.message)}`;
}
