/**
 * Writing the transcript once (DESIGN §4, §16). A resumed run's transcript starts with the messages
 * its snapshot held, unchanged (the machine only appends). Their JSON text is already in that
 * snapshot, so the next snapshot reuses it and serializes only the new messages: a resume at 1000
 * messages no longer pays for `JSON.stringify` of the 1000 it just parsed.
 */
import type { ChatMessage } from '../types.js';

/** The messages a snapshot held, and their JSON text (the array's inside, without the brackets). */
export interface TranscriptText {
  messages: readonly ChatMessage[];
  text: string;
}

const MESSAGES_KEY = '"messages":[';
/** What follows the transcript in every snapshot TurnKit writes: the next key of the loop context. */
const AFTER_MESSAGES = '],"step":';

/**
 * Finds the JSON text of the run's transcript in a snapshot's (plain) text: the first
 * `"messages":[` is the top-level context's, since the header before it holds no such key, and the
 * array ends at the first `],"step":` after it — no message holds a `"step"` key, and inside a
 * string a quote is escaped, so that sequence cannot occur within the messages.
 */
export function transcriptText(text: string, messages: readonly ChatMessage[]): TranscriptText | undefined {
  const start = text.indexOf(MESSAGES_KEY);
  if (start === -1) return undefined;
  const from = start + MESSAGES_KEY.length;
  const end = text.indexOf(AFTER_MESSAGES, from - 1);
  if (end < from - 1) return undefined;
  return { messages, text: end < from ? '' : text.slice(from, end) };
}

/** Whether `messages` starts with exactly the objects of `known` (the machine appends, never edits). */
function extends_(messages: readonly ChatMessage[], known: readonly ChatMessage[]): boolean {
  if (messages.length < known.length) return false;
  for (let index = known.length - 1; index >= 0; index--) if (messages[index] !== known[index]) return false;
  return true;
}

/** The first key of an object, as JSON.stringify would write it. */
function firstKey(value: object): string | undefined {
  for (const key in value) return key;
  return undefined;
}

/**
 * `JSON.stringify(envelope)`, reusing `known.text` for the messages it already holds. Falls back to
 * a plain stringify whenever the shape is not the one the reuse relies on.
 */
export function stringifyWithTranscript(
  envelope: { state: { context: { messages: ChatMessage[] } } },
  known: TranscriptText | undefined,
): string {
  const context = envelope.state.context;
  const messages = context.messages;
  if (
    !known ||
    known.messages.length === 0 ||
    !extends_(messages, known.messages) ||
    firstKey(context) !== 'messages'
  ) {
    return JSON.stringify(envelope);
  }
  const shell = JSON.stringify({
    ...envelope,
    state: { ...envelope.state, context: { ...context, messages: [] } },
  });
  const at = shell.indexOf('"messages":[]');
  if (at === -1) return JSON.stringify(envelope);
  const fresh =
    messages.length > known.messages.length ? JSON.stringify(messages.slice(known.messages.length)) : '';
  const inside = fresh === '' ? known.text : `${known.text},${fresh.slice(1, -1)}`;
  const cut = at + MESSAGES_KEY.length;
  return `${shell.slice(0, cut)}${inside}${shell.slice(cut)}`;
}
