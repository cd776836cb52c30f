/**
 * Row layout 2 (DESIGN §17): a snapshot kept in a store as a small head and two append-only logs,
 * so that a write costs the new messages, not the history. Store rows only: the snapshot string a
 * caller sees (assembled from the parts) is the same text `encodeSnapshot` writes.
 *
 * - **Logs.** The transcript and the resolved records, each kept as the inside of its JSON array:
 *   the JSON text of every entry, joined by `,` (`''` when empty). A write appends its new entries'
 *   text after the stored text, with a `,` between two non-empty texts; a store may keep the
 *   appended texts as separate chunks, as long as it joins them back in order. A transcript text
 *   past `LOG_CHUNK_CHARS` (an import, a rewrite of a long history) comes with `cuts`, the `,`
 *   between entries where the store may cut it into chunks of at most that (log-text.ts).
 * - **Head.** One line of metadata, then the envelope text with both arrays left empty:
 *   `{"layout":2,"at":[m,r],"messages":n,"resolved":k,"sig":"…"}\n{"format":"turnkit.snapshot",…}`.
 *   `at` are the offsets in that envelope text where the transcript and the records go back in;
 *   `messages` and `resolved` count the entries (a reader checks the logs it got against them);
 *   `sig` is there when the agent signs. Everything else of the machine state (the current step,
 *   paused sub-agents, counters, the application context) is in the head, which stays small: it
 *   holds no message and no resolved record.
 * - **Signing.** A signed agent's head carries the signature of the whole assembled text — the
 *   HMAC that `signText` would compute, fed piece by piece (head, transcript, head, records, head),
 *   so no joined copy is made to sign it. Assembling appends it as `,"sig":"…"}`, so what a store's
 *   `get` returns is a normal signed snapshot and every read verifies it as before: an edited log
 *   entry or head is `SNAPSHOT_TAMPERED`. The price: hashing the history on each write of a signed
 *   agent (SHA-256, about 1 ms per MB); the bytes written stay those of the new entries. A store
 *   alone cannot sign (it has no secret), which is why the head keeps the full signature rather than
 *   one over the head and a digest of the logs.
 * - **Encrypted agents** (`encrypt: true`) are not split: their snapshots stay in layout 1 (one
 *   sealed string per write), since sealing the logs apart would let a reader of the row see how
 *   many messages there are and where each one ends.
 * - **Append or rewrite.** A write appends when the stored row is in layout 2 and the run's
 *   transcript and records still start with exactly the entries stored (the machine only appends);
 *   anything else (a layout-1 row, a `migrate` that changed the messages) rewrites both logs.
 * - **Compacted runs** (DESIGN §22). The transcript log keeps every message the run ever had; a
 *   compaction never rewrites it. The run's messages are then a window: `state.context.window`
 *   `{ from, summary }` says that they are `summary` messages not in the log (the compaction's
 *   summary, the system messages it kept), then the full transcript from entry `from` on. The head
 *   holds those summary messages (in its envelope, where the transcript goes back in) and its first
 *   line `window: { from, at, base }`: `at` is where entry `from` starts in the log text, `base` the
 *   full-transcript index of the log's first entry (0, unless a rewrite — a layout-1 row of a
 *   compacted run — could only write the window). Assembling puts the summary, then the log from
 *   `at`, so the snapshot (and its signature) is the window's: a resume verifies and loads what the
 *   model sees, and the log before `from` serves the audit (`sessions.get(runId, { transcript:
 *   'full' })`). A write after a compaction appends the new messages and moves `from` forward.
 * - **Partial reads** (DESIGN §22). Each write tells the store where the window starts in the log
 *   text (`windowAt`, the head's `window.at`). A store that keeps, per appended chunk, the offset
 *   where it starts can then answer `getParts(runId, { transcript: 'window' })` with the chunks
 *   from the one holding `windowAt` on, and `messagesAt` (where they start): a resume reads the
 *   head, the window and the resolved records, O(window), not O(history) — however the history
 *   arrived, since no chunk is longer than `LOG_CHUNK_CHARS` unless one entry is. The append
 *   check needs no old entry either: the log's length (`messagesAt` + what was read) and the
 *   window's entries locate everything a write appends. The signature is over the window (and the resolved records)
 *   only, so what a resume reads is exactly what it verifies. A signed run's entries before the
 *   window are covered by a MAC chain in the head (`window.chain`, extended by each compaction over
 *   the entries it moves out), which `fullTranscript` checks on a full read.
 */
import { SnapshotError } from '../errors.js';
import type { HistoryWindow, ResolvedRecord } from '../machine/index.js';
import type { ChatMessage } from '../types.js';
import type { DecodedSnapshot, SnapshotKeys } from './envelope.js';
import { joinLog, logCuts } from './log-text.js';
import { signatureOf, withSignature } from './signing.js';

/** A snapshot in row layout 2: its head and its two logs (see the file's header for their format). */
export interface SnapshotParts {
  head: string;
  /** The transcript log: each message's JSON text, joined by `,`. */
  messages: string;
  /** The resolved-record log: each record's JSON text, joined by `,`. */
  resolved: string;
}

/** What a run's stored logs hold, as last read or written: the next write appends to it. */
export interface StoredLogs {
  /** 2 when the row is in layout 2 with exactly these logs: only then can a write append. */
  layout: 1 | 2;
  messages: readonly ChatMessage[];
  /** The JSON text of `messages`, joined by `,`. */
  messagesText: string;
  resolved: readonly ResolvedRecord[];
  /** The JSON text of `resolved`, joined by `,`; unknown (undefined) for a layout-1 row. */
  resolvedText?: string;
  /** The stored transcript log around the window (layout 2): see {@link LogWindow}. */
  log?: LogWindow;
}

/** Where the window of a compacted run (DESIGN §22) sits in its stored transcript log. */
export interface LogWindow {
  /** How many entries the log holds. */
  count: number;
  /** The full-transcript index of the log's first entry. */
  base: number;
  /** The full-transcript index of the window's first message after its summary. */
  from: number;
  /** Where entry `from` starts in the log's text. */
  at: number;
  /** The length of the log's text. */
  length: number;
  /** How many messages at the start of the window are summary, not in the log. */
  summary: number;
  /** A signed run's chain of MACs over the log's entries before the window (see {@link fullTranscript}). */
  chain?: string;
}

/** A write in layout 2: see {@link encodeParts}. */
export interface EncodedParts {
  /**
   * The head and the logs' texts: the entries added since `logs` (`append`), or every entry
   * (`rewrite`, which replaces what is stored).
   */
  write: SnapshotParts & { mode: 'append' | 'rewrite'; windowAt?: number; cuts?: number[] };
  /** The logs as stored once the write succeeds. */
  logs: StoredLogs;
  /** The whole snapshot string (signed when the agent signs), assembled on first call. */
  snapshot(): string;
}

/** The head's first line. */
interface HeadMeta {
  layout: 2;
  at: [number, number];
  messages: number;
  resolved: number;
  /** A compacted run's window in the transcript log (see the file's header). */
  window?: { from: number; at: number; base: number; chain?: string };
  sig?: string;
}

const SIG = /^[0-9a-f]{64}$/;

/** Whether `items` starts with exactly the objects of `known` (the machine appends, never edits). */
function startsWith<T>(items: readonly T[], known: readonly T[]): boolean {
  if (items.length < known.length) return false;
  for (let index = known.length - 1; index >= 0; index--) if (items[index] !== known[index]) return false;
  return true;
}

/** The inside of `JSON.stringify(items)`: each entry's text joined by `,`. */
function entriesText(items: readonly unknown[]): string {
  return items.length === 0 ? '' : JSON.stringify(items).slice(1, -1);
}

/** A log's text after this write: what was added since `known`, and the whole. */
function logText<T>(
  items: readonly T[],
  known: readonly T[] | undefined,
  knownText: string | undefined,
): { added: string; whole: string; appended: boolean } {
  if (known !== undefined && knownText !== undefined && startsWith(items, known)) {
    const added = entriesText(items.slice(known.length));
    return { added, whole: joinLog(knownText, added), appended: true };
  }
  const whole = entriesText(items);
  return { added: whole, whole, appended: false };
}

/**
 * The envelope text around the two logs, in three pieces: the text before the transcript, between
 * it and the records, and after them. Written key by key in the order every snapshot has (the
 * header, then `state` whose context starts with messages, step, resolved), so the assembled text
 * is what `JSON.stringify` of the envelope gives.
 */
function envelopePieces(decoded: DecodedSnapshot): [string, string, string] {
  const { state, context: appContext, ...header } = decoded;
  const { messages: _messages, step, resolved: _resolved, ...rest } = state.context;
  const restText = JSON.stringify(rest);
  return [
    `${JSON.stringify(header).slice(0, -1)},"state":{"value":${JSON.stringify(state.value)},"context":{"messages":[`,
    `],"step":${JSON.stringify(step ?? null)},"resolved":[`,
    `]${restText === '{}' ? '' : `,${restText.slice(1, -1)}`}}},"context":${JSON.stringify(appContext ?? null)}}`,
  ];
}

/**
 * Splits a decoded snapshot into a head and its logs' texts for a store in row layout 2, appending
 * to `logs` when it can. Returns undefined for an agent that encrypts (layout 1 only).
 */
export function encodeParts(
  decoded: DecodedSnapshot,
  keys: SnapshotKeys = {},
  logs?: StoredLogs,
): EncodedParts | undefined {
  if (keys.encrypt) return undefined;
  const context = decoded.state.context;
  const [before, between, after] = envelopePieces(decoded);
  const resolved = logText(context.resolved, logs?.resolved, logs?.resolvedText);
  const transcript =
    (logs?.layout === 2 &&
      resolved.appended &&
      appendTranscript(context.messages, context.window, logs, keys.secret)) ||
    rewriteTranscript(context.messages, context.window);
  const mode = transcript.mode === 'append' && resolved.appended ? 'append' : 'rewrite';
  const { log, summaryText, windowText } = transcript;
  const sig = keys.secret
    ? signatureOf([before, windowText, between, resolved.whole, after], keys.secret)
    : undefined;
  const windowed = context.window !== undefined || log.base > 0;
  const meta: HeadMeta = {
    layout: 2,
    at: [before.length + summaryText.length, before.length + summaryText.length + between.length],
    messages: log.count,
    resolved: context.resolved.length,
    ...(windowed
      ? { window: { from: log.from, at: log.at, base: log.base, ...(log.chain ? { chain: log.chain } : {}) } }
      : {}),
    ...(sig !== undefined ? { sig } : {}),
  };
  let snapshot: string | undefined;
  return {
    write: {
      head: `${JSON.stringify(meta)}\n${before}${summaryText}${between}${after}`,
      mode,
      messages: transcript.added,
      resolved: mode === 'append' ? resolved.added : resolved.whole,
      ...(log.at > 0 ? { windowAt: log.at } : {}),
      ...(transcript.cuts.length > 0 ? { cuts: transcript.cuts } : {}),
    },
    logs: {
      layout: 2,
      messages: context.messages,
      messagesText: windowText,
      resolved: context.resolved,
      resolvedText: resolved.whole,
      log,
    },
    snapshot() {
      if (snapshot === undefined) {
        const text = `${before}${windowText}${between}${resolved.whole}${after}`;
        snapshot = sig === undefined ? text : withSignature(text, sig);
      }
      return snapshot;
    },
  };
}

/** The transcript part of a layout-2 write: what to send, and the log and window after it. */
interface TranscriptWrite {
  mode: 'append' | 'rewrite';
  /** The log text to send: the entries added (`append`), or the whole log (`rewrite`). */
  added: string;
  /** Where `added` may be cut into chunks a store keeps apart (see `logCuts`): none when it is short. */
  cuts: number[];
  log: LogWindow;
  /** The JSON text of the window's summary messages, joined by `,` (kept in the head). */
  summaryText: string;
  /** The JSON text of the whole window (the run's messages), joined by `,`. */
  windowText: string;
}

/** The log a write must replace: the messages after the window's summary (no older entry is known). */
function rewriteTranscript(
  messages: readonly ChatMessage[],
  window: HistoryWindow | undefined,
): TranscriptWrite {
  const summary = window?.summary ?? 0;
  const from = window?.from ?? 0;
  const summaryText = entriesText(messages.slice(0, summary));
  const entries = summary === 0 ? messages : messages.slice(summary);
  const logText = entriesText(entries);
  return {
    mode: 'rewrite',
    added: logText,
    cuts: logCuts(entries, logText),
    log: { count: messages.length - summary, base: from, from, at: 0, length: logText.length, summary },
    summaryText,
    windowText: joinLog(summaryText, logText),
  };
}

/**
 * Appending to the stored log: the run's messages after their summary must go on from the stored
 * window's log entries (at `from`, moved forward by a compaction) with exactly the objects stored;
 * undefined when they do not (then the write rewrites).
 */
function appendTranscript(
  messages: readonly ChatMessage[],
  window: HistoryWindow | undefined,
  logs: StoredLogs,
  secret?: string,
): TranscriptWrite | undefined {
  const stored = logs.log ?? {
    count: logs.messages.length,
    base: 0,
    from: 0,
    at: 0,
    length: logs.messagesText.length,
    summary: 0,
  };
  const summary = window?.summary ?? 0;
  const from = window?.from ?? 0;
  // The stored window's messages that are log entries: full-transcript indices from stored.from on.
  const known = logs.messages.slice(stored.summary);
  const shift = from - stored.from;
  if (shift < 0 || shift > known.length || messages.length - summary < known.length - shift) return undefined;
  for (let index = known.length - 1; index >= shift; index--) {
    if (messages[summary + index - shift] !== known[index]) return undefined;
  }
  const fresh = messages.slice(summary + known.length - shift);
  const added = entriesText(fresh);
  const cuts = logCuts(fresh, added);
  const length = stored.length + (stored.length > 0 && added !== '' ? 1 : 0) + added.length;
  let at = stored.at;
  let chain = stored.chain ?? '';
  // Entry i of the log starts after every entry before it and its comma. A signed run chains the
  // entries leaving the window into its MAC chain (O(entries moved), once per compaction).
  for (let index = 0; index < shift; index++) {
    const text = JSON.stringify(known[index]);
    at += text.length + 1;
    if (secret) chain = signatureOf([chain, text], secret);
  }
  const log: LogWindow = {
    count: stored.count + fresh.length,
    base: stored.base,
    from,
    at,
    length,
    summary,
    ...(chain ? { chain } : {}),
  };
  if (shift === 0 && summary === stored.summary && startsWith(messages, logs.messages.slice(0, summary))) {
    // No compaction since: the window grows by the added entries.
    return {
      mode: 'append',
      added,
      cuts,
      log,
      summaryText: entriesText(messages.slice(0, summary)),
      windowText: joinLog(logs.messagesText, added),
    };
  }
  // A compaction since the stored write: the window's text is written anew (O(window), once).
  const summaryText = entriesText(messages.slice(0, summary));
  return {
    mode: 'append',
    added,
    cuts,
    log,
    summaryText,
    windowText: joinLog(summaryText, entriesText(messages.slice(summary))),
  };
}

function invalidParts(detail: string): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_INVALID',
    `This stored run is not a readable TurnKit row (${detail}). Restore the row as TurnKit wrote it, or delete the run.`,
  );
}

function readMeta(head: string): { meta: HeadMeta; envelope: string } {
  if (typeof head !== 'string') throw invalidParts('its head is not a string');
  const newline = head.indexOf('\n');
  let meta: Partial<HeadMeta> | null = null;
  try {
    meta = newline > 0 ? (JSON.parse(head.slice(0, newline)) as Partial<HeadMeta>) : null;
  } catch {
    meta = null;
  }
  const envelope = head.slice(newline + 1);
  const [m, r] = Array.isArray(meta?.at) ? meta.at : [];
  const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
  if (
    typeof meta !== 'object' ||
    meta === null ||
    meta.layout !== 2 ||
    !count(m) ||
    !count(r) ||
    m! > r! ||
    r! > envelope.length ||
    (envelope[m! - 1] !== '[' && !(meta.window && envelope[m! - 1] === '}')) ||
    envelope[r! - 1] !== '[' ||
    (meta.window !== undefined &&
      (typeof meta.window !== 'object' ||
        meta.window === null ||
        !count(meta.window.from) ||
        !count(meta.window.at) ||
        !count(meta.window.base) ||
        meta.window.base > meta.window.from ||
        (meta.window.chain !== undefined &&
          !(typeof meta.window.chain === 'string' && SIG.test(meta.window.chain))))) ||
    !count(meta.messages) ||
    !count(meta.resolved) ||
    (meta.sig !== undefined && !(typeof meta.sig === 'string' && SIG.test(meta.sig)))
  ) {
    throw invalidParts('its head does not start with a layout-2 line');
  }
  return { meta: meta as HeadMeta, envelope };
}

/** A layout-2 row opened: see {@link openParts}. */
export interface OpenedParts {
  /** The snapshot string (signed when the head is): a compacted run's window. */
  snapshot: string;
  /** The entries the head counts in the transcript log (every message kept, window or not). */
  messages: number;
  resolved: number;
  /** The JSON text of the run's messages (the window), joined by `,`. */
  windowText: string;
  /** Where the window sits in the log (absent for a run never compacted). */
  window?: { from: number; at: number; base: number; chain?: string };
}

/**
 * Assembles a layout-2 row into its snapshot string (signed when its head is), and says how many
 * entries the head counts in each log. `messagesAt`: where `parts.messages` starts in the whole
 * transcript log (a store's partial read, DESIGN §22); it must be at or before the window's start.
 * Throws `SNAPSHOT_INVALID` for a head TurnKit did not write.
 */
export function openParts(parts: SnapshotParts & { messagesAt?: number }): OpenedParts {
  const { meta, envelope } = readMeta(parts.head);
  if (typeof parts.messages !== 'string' || typeof parts.resolved !== 'string') {
    throw invalidParts('its logs are not text');
  }
  // A store may return the log from a chunk at or before the window's start (a partial read).
  const offset = parts.messagesAt ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > (meta.window?.at ?? 0)) {
    throw invalidParts(`its store returned the transcript log from ${offset}, after the window's start`);
  }
  const [m, r] = meta.at;
  let windowText = parts.messages;
  if (meta.window) {
    const open = envelope.indexOf('"messages":[') + '"messages":['.length;
    const summaryText = open > 0 && open <= m ? envelope.slice(open, m) : '';
    windowText = joinLog(summaryText, parts.messages.slice(meta.window.at - offset));
  }
  const start = meta.window ? envelope.indexOf('"messages":[') + '"messages":['.length : m;
  if (start < 1 || start > m) throw invalidParts('its head does not hold the window where it says');
  const text = `${envelope.slice(0, start)}${windowText}${envelope.slice(m, r)}${parts.resolved}${envelope.slice(r)}`;
  return {
    snapshot: meta.sig === undefined ? text : withSignature(text, meta.sig),
    messages: meta.messages,
    resolved: meta.resolved,
    windowText,
    ...(meta.window ? { window: meta.window } : {}),
  };
}

/**
 * The full transcript log of a layout-2 row (DESIGN §22): every message the run kept, summaries
 * excluded, starting at full-transcript index `base` (0 unless earlier entries were lost). The
 * window's entries are covered by the head's signature; with `secret` (a signed agent's), the
 * entries before the window are checked against the head's MAC chain (`window.chain`: each entry's
 * MAC over the previous MAC and its JSON text, extended by every compaction over the entries it
 * moved out of the window), so an edited, dropped or added entry there is SNAPSHOT_TAMPERED.
 * `from`: the window's start as the verified snapshot gives it (the head's must match).
 */
export function fullTranscript(
  parts: SnapshotParts,
  verify?: { secret: string; from: number },
): { base: number; messages: ChatMessage[] } {
  const { meta } = readMeta(parts.head);
  if (typeof parts.messages !== 'string') throw invalidParts('its logs are not text');
  let messages: unknown;
  try {
    messages = JSON.parse(`[${parts.messages}]`);
  } catch {
    throw invalidParts('its transcript log is not JSON');
  }
  if (!Array.isArray(messages) || messages.length !== meta.messages) {
    throw invalidParts(`its transcript log does not hold the ${meta.messages} messages its head counts`);
  }
  const window = meta.window ?? { from: 0, at: 0, base: 0 };
  if (verify) {
    let chain = '';
    for (let index = 0; index < window.from - window.base; index++) {
      chain = signatureOf([chain, JSON.stringify(messages[index])], verify.secret);
    }
    if (window.from !== verify.from || (window.chain ?? '') !== chain) {
      throw new SnapshotError(
        'SNAPSHOT_TAMPERED',
        'The stored transcript before the window does not match its signed chain: an entry was edited, dropped or added. Restore the row as TurnKit wrote it.',
      );
    }
  }
  return { base: window.base, messages: messages as ChatMessage[] };
}

/**
 * The snapshot string of a layout-2 row: what a store's `get` returns for it. For store authors:
 * `get` stays `{ snapshot: assembleSnapshot({ head, messages, resolved }), version, lease }`.
 */
export function assembleSnapshot(parts: SnapshotParts): string {
  return openParts(parts).snapshot;
}
