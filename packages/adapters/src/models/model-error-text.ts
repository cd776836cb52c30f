/**
 * What a model adapter tells `onError` about a call the provider refused, by HTTP status: the same
 * advice for every adapter, each filling in who failed, where, and what to check.
 */

/** The adapter's words for one failed call. */
export interface StatusWords {
  /** Who answered, as a sentence's subject: `The server`, `anthropic`. */
  who: string;
  /** The call, as in "The … failed": `model call`, `anthropic call`. */
  call: string;
  model: string;
  /** Where the call went, as ` at <url>`, or '' when the detail already says. */
  at: string;
  /** How many attempts were made, as `3 attempts`. */
  tries: string;
  /** The options a 400 may come from: `the options you pass (temperature, extraBody)`. */
  options: string;
  /** Where the key comes from, for a 401. */
  key: string;
  /** What a 404 may come from. */
  notFound: string;
}

/** A provider's text as a clause to end with our own full stop: its trailing stops and spaces cut. */
export function clause(text: string): string {
  return text.replace(/[\s.]+$/, '');
}

/**
 * What clients read when the provider refused the key (401/403): unlike other refusals, a retry
 * cannot help until the operator acts, so the public message says so — never the key or the URL.
 */
export function credentialsPublicMessage(status: number): string | undefined {
  if (status === 401 || status === 403) return `The model provider refused the credentials (${status}).`;
  return undefined;
}

/** What clients read when the provider found no API key at all (it refused before any request). */
export const NO_KEY_PUBLIC_MESSAGE = 'The model provider refused the credentials: no API key is set.';

/** The message of a refused call: what happened and what to do about it. */
export function statusMessage(status: number, providerText: string, words: StatusWords): string {
  const { who, call, model, at, tries } = words;
  const detail = clause(providerText);
  switch (status) {
    case 400:
      return (
        `${who} rejected the request (400)${at}: ${detail}. Check that model "${model}" supports tool calling ` +
        `and that ${words.options} are valid for it.`
      );
    case 401:
      return `The API key was refused (401)${at}: ${detail}. ${words.key}`;
    case 403:
      return `Access denied (403)${at}: ${detail}. Check that this API key may use model "${model}".`;
    case 404:
      return `Not found (404)${at}: ${detail}. ${words.notFound}`;
    case 429:
      return (
        `Rate limited (429) after ${tries}: ${detail}. Wait and retry the turn (runTurn with the snapshot and ` +
        'no input), raise maxRetries, or check the account quota.'
      );
    default:
      if (status >= 500) {
        return `${who} failed (${status}) after ${tries}: ${detail}. The provider is having trouble; retry the turn later.`;
      }
      return `The ${call} failed (${status})${at}: ${detail}. Check the call settings for model "${model}".`;
  }
}
