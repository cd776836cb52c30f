/**
 * Row layout 2 (DESIGN §17): a snapshot kept in a store as a small head and two append-only logs,
 * so that a write costs the new messages, not the history. Store rows only: the snapshot string a
 * caller sees (assembled from the parts) is the same text `encodeSnapshot` writes.
 *
 * - **Logs.** The transcript and the resolved records, each kept as the inside of its JSON array:
 *   the JSON text of every entry, joined by `,` (`''` when empty). A write appends its new entries'
 *   text after the stored text, with a `,` between two non-empty texts; a store may keep the
 *   appended texts as separate chunks, as long as it joins them back in order.
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
 */
import { SnapshotError } from '../errors.js';
import type { ResolvedRecord } from '../machine/index.js';
import type { ChatMessage } from '../types.js';
import type { DecodedSnapshot, SnapshotKeys } from './envelope.js';
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
}

/** A write in layout 2: see {@link encodeParts}. */
export interface EncodedParts {
  /**
   * The head and the logs' texts: the entries added since `logs` (`append`), or every entry
   * (`rewrite`, which replaces what is stored).
   */
  write: SnapshotParts & { mode: 'append' | 'rewrite' };
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
  sig?: string;
}

const SIG = /^[0-9a-f]{64}$/;

/** Two log texts as one: joined by `,` unless either is empty. */
export function joinLog(stored: string, added: string): string {
  if (stored === '') return added;
  return added === '' ? stored : `${stored},${added}`;
}

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
  const messages = logText(context.messages, logs?.messages, logs?.messagesText);
  const resolved = logText(context.resolved, logs?.resolved, logs?.resolvedText);
  const mode = logs?.layout === 2 && messages.appended && resolved.appended ? 'append' : 'rewrite';
  const sig = keys.secret
    ? signatureOf([before, messages.whole, between, resolved.whole, after], keys.secret)
    : undefined;
  const meta: HeadMeta = {
    layout: 2,
    at: [before.length, before.length + between.length],
    messages: context.messages.length,
    resolved: context.resolved.length,
    ...(sig !== undefined ? { sig } : {}),
  };
  let snapshot: string | undefined;
  return {
    write: {
      head: `${JSON.stringify(meta)}\n${before}${between}${after}`,
      mode,
      messages: mode === 'append' ? messages.added : messages.whole,
      resolved: mode === 'append' ? resolved.added : resolved.whole,
    },
    logs: {
      layout: 2,
      messages: context.messages,
      messagesText: messages.whole,
      resolved: context.resolved,
      resolvedText: resolved.whole,
    },
    snapshot() {
      if (snapshot === undefined) {
        const text = `${before}${messages.whole}${between}${resolved.whole}${after}`;
        snapshot = sig === undefined ? text : withSignature(text, sig);
      }
      return snapshot;
    },
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
    envelope[m! - 1] !== '[' ||
    envelope[r! - 1] !== '[' ||
    !count(meta.messages) ||
    !count(meta.resolved) ||
    (meta.sig !== undefined && !(typeof meta.sig === 'string' && SIG.test(meta.sig)))
  ) {
    throw invalidParts('its head does not start with a layout-2 line');
  }
  return { meta: meta as HeadMeta, envelope };
}

/**
 * Assembles a layout-2 row into its snapshot string (signed when its head is), and says how many
 * entries the head counts in each log. Throws `SNAPSHOT_INVALID` for a head TurnKit did not write.
 */
export function openParts(parts: SnapshotParts): { snapshot: string; messages: number; resolved: number } {
  const { meta, envelope } = readMeta(parts.head);
  if (typeof parts.messages !== 'string' || typeof parts.resolved !== 'string') {
    throw invalidParts('its logs are not text');
  }
  const [m, r] = meta.at;
  const text = `${envelope.slice(0, m)}${parts.messages}${envelope.slice(m, r)}${parts.resolved}${envelope.slice(r)}`;
  return {
    snapshot: meta.sig === undefined ? text : withSignature(text, meta.sig),
    messages: meta.messages,
    resolved: meta.resolved,
  };
}

/**
 * The snapshot string of a layout-2 row: what a store's `get` returns for it. For store authors:
 * `get` stays `{ snapshot: assembleSnapshot({ head, messages, resolved }), version, lease }`.
 */
export function assembleSnapshot(parts: SnapshotParts): string {
  return openParts(parts).snapshot;
}
