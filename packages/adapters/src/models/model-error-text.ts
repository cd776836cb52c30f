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

/** The message of a refused call: what happened and what to do about it. */
export function statusMessage(status: number, detail: string, words: StatusWords): string {
  const { who, call, model, at, tries } = words;
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
