/**
 * The snapshot string (DESIGN §4, §12): a versioned JSON envelope around the machine's state. The
 * transcript is plain JSON, written once by `JSON.stringify`; only the application `context` goes
 * through superjson. With a secret the exact bytes are HMAC-signed and verified before parsing, or
 * (with `encrypt`) the envelope is sealed with AES-256-GCM behind a clear header.
 */
import type { SuperJSONResult } from 'superjson';
import { SnapshotError, TurnkitError } from '../errors.js';
import type { LoopContext, LoopStateName } from '../machine/index.js';
import type { TraceContext } from '../types.js';
import { decryptEnvelope, ENCRYPTED_MARK, encryptEnvelope, encryptedNonce } from './encryption.js';
import { checkEnvelope, checkTranscripts } from './shape.js';
import { signatureIn, signText, verifySignature } from './signing.js';
import { stringifyWithTranscript, type TranscriptText } from './transcript.js';

/** The snapshot format version this release writes. It reads this one and every earlier one. */
export const SNAPSHOT_VERSION = 2;
const FORMAT = 'turnkit.snapshot';

/** A snapshot decoded for inspection (see {@link parseSnapshot}). */
export interface DecodedSnapshot {
  format: typeof FORMAT;
  /** The format it was written in: 1 (the first release) or 2. */
  version: 1 | typeof SNAPSHOT_VERSION;
  agent: string;
  agentVersion: string;
  runId: string;
  /** Turns (calls of runTurn, answerQuestion…) so far. */
  turn: number;
  /** The last event sequence number used. */
  seq: number;
  /**
   * The store row version the write of this snapshot created (sessions write it; a client-held
   * snapshot has none). Signed or sealed with the rest, so an older row restored under a newer
   * version no longer verifies as that version.
   */
  row?: number;
  createdAt: string;
  /** Who started the run (an HTTP handler's `authorize` principal); checked on every route that names it. */
  principal?: string;
  /** The paused turn's span context, when telemetry is on. */
  trace?: TraceContext;
  /** Sessions (DESIGN §20): ids of pending interactions whose `onInteraction` was called. */
  notified?: string[];
  /** Sessions (DESIGN §20): ids of the answer links already used on this run (each works once). */
  usedLinks?: string[];
  /** For a fork (DESIGN §21): the run and stored version it was started from. */
  forkedFrom?: { runId: string; version: number };
  /**
   * Handoffs (DESIGN §27): the agent playing the run, when it is not the root, and the agent whose
   * handoff made it play (its `inputFilter` applies). Absent: the root plays. A `migrate` may re-point it.
   */
  activeAgent?: { name: string; from: string };
  /** The machine's persisted state: its state name and context (transcript, current step…). */
  state: { value: LoopStateName; context: LoopContext };
  /** The application context, serialized by superjson; null when there is none. */
  context: SuperJSONResult | null;
}

/** How an agent protects its snapshots: HMAC-signed with `secret`, or also encrypted. */
export interface SnapshotKeys {
  /**
   * The HMAC key. `undefined` (e.g. an unset environment variable) is the same as leaving it out:
   * snapshots are then neither signed nor checked, so an edited one resumes.
   */
  secret?: string | undefined;
  /** With `secret`: AES-256-GCM, so a client holding the snapshot reads neither transcript nor context. */
  encrypt?: boolean | undefined;
}

/**
 * Serializes a decoded snapshot to its string form: plain, signed (`secret`), or encrypted
 * (`encrypt`). With `transcript` (the text of the messages a loaded snapshot held), those messages
 * are not serialized again.
 */
export function encodeSnapshot(
  decoded: DecodedSnapshot,
  keys: SnapshotKeys = {},
  transcript?: TranscriptText,
): string {
  const text = stringifyWithTranscript(decoded, transcript);
  if (!keys.secret) return text;
  if (!keys.encrypt) return signText(text, keys.secret);
  const { format, version, agent, agentVersion, runId, turn, seq } = decoded;
  const header = JSON.stringify({ format, version, agent, agentVersion, runId, turn, seq }).slice(0, -1);
  return encryptEnvelope(header, text, keys.secret);
}

/**
 * Where the clear header of an encrypted snapshot ends (its `,"enc":`), or -1 for a plain one. A
 * plain snapshot's header is followed by `,"createdAt":`, found within its first few hundred
 * characters; an encrypted one has no such key at all (its members are base64url), and its marker
 * comes right after the header. So a plain snapshot is never scanned to its end: doing that cost a
 * sixth of a 1000-message resume.
 */
function encryptedAt(snapshot: string): number {
  if (snapshot.indexOf(',"createdAt":') !== -1) return -1;
  const cut = snapshot.indexOf(ENCRYPTED_MARK);
  return cut > 0 ? cut : -1;
}

/** The SNAPSHOT_INVALID error, with what was wrong. */
export function invalidSnapshot(detail: string, cause?: unknown): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_INVALID',
    `This is not a readable TurnKit snapshot (${detail}). Pass the \`snapshot\` string of a TurnResult, unchanged.`,
    { cause },
  );
}

/**
 * Signature or decryption, then format/version checks; returns the parsed, not yet shape-checked
 * envelope. An agent that encrypts accepts only encrypted snapshots (a plain one carries no
 * signature); one that signs accepts signed or encrypted ones under its secret.
 */
export function readEnvelope(snapshot: unknown, keys: SnapshotKeys = {}): Record<string, unknown> {
  return openEnvelope(snapshot, keys).envelope;
}

/** {@link readEnvelope}, with the plain text it parsed (the decrypted one for an encrypted snapshot). */
export function openEnvelope(
  snapshot: unknown,
  keys: SnapshotKeys = {},
): { envelope: Record<string, unknown>; text: string } {
  if (typeof snapshot !== 'string') throw invalidSnapshot(`expected a string, got ${typeof snapshot}`);
  const cut = encryptedAt(snapshot);
  let text = snapshot;
  if (cut > 0) {
    if (!keys.secret) {
      throw invalidSnapshot('it is encrypted, and this agent has no `snapshot.secret` to open it');
    }
    text = decryptEnvelope(snapshot, keys.secret);
  } else if (keys.encrypt && keys.secret) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'This agent requires encrypted snapshots and this one is not encrypted: pass the snapshot string exactly as TurnKit returned it.',
    );
  } else if (keys.secret) {
    verifySignature(snapshot, keys.secret);
  }
  // The signed text parses to the unsigned envelope plus `sig`, which is dropped below.
  const envelope = parseObject(text);
  if (envelope.format !== FORMAT) throw invalidSnapshot(`format is ${JSON.stringify(envelope.format)}`);
  if (envelope.version !== 1 && envelope.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      'SNAPSHOT_VERSION',
      `Snapshot format version ${JSON.stringify(envelope.version)} is not supported: this TurnKit reads versions 1 to ${SNAPSHOT_VERSION}. Resume it with the TurnKit release that wrote it, or upgrade.`,
    );
  }
  if (cut > 0) checkClearHeader(parseObject(`${snapshot.slice(0, cut)}}`), envelope);
  delete envelope.sig;
  return { envelope, text };
}

/** The clear header of an encrypted snapshot must say what its authenticated content says. */
function checkClearHeader(header: Record<string, unknown>, envelope: Record<string, unknown>): void {
  for (const key of ['format', 'version', 'agent', 'agentVersion', 'runId', 'turn', 'seq']) {
    if (header[key] !== envelope[key]) {
      throw new SnapshotError(
        'SNAPSHOT_TAMPERED',
        `The clear header of the encrypted snapshot does not match its content (${key}).`,
      );
    }
  }
}

/** Shape check of an envelope (after signature, format and any migration). */
export function checkShape(envelope: unknown): DecodedSnapshot {
  const problem = checkEnvelope(envelope);
  if (problem) throw invalidSnapshot(problem);
  const checked = envelope as Record<string, unknown> & Omit<DecodedSnapshot, 'format'>;
  const state = checked.state as DecodedSnapshot['state'];
  const consistency = checkTranscripts(state.context, state.value);
  if (consistency) throw invalidSnapshot(consistency);
  // Only the known fields, in the order a snapshot is written (unknown ones are dropped here).
  return {
    format: FORMAT,
    version: checked.version,
    agent: checked.agent,
    agentVersion: checked.agentVersion,
    runId: checked.runId,
    turn: checked.turn,
    seq: checked.seq,
    ...(checked.row !== undefined ? { row: checked.row } : {}),
    createdAt: checked.createdAt,
    ...(checked.principal !== undefined ? { principal: checked.principal } : {}),
    ...(checked.trace !== undefined ? { trace: checked.trace } : {}),
    ...(checked.notified !== undefined ? { notified: checked.notified } : {}),
    ...(checked.usedLinks !== undefined ? { usedLinks: checked.usedLinks } : {}),
    ...(checked.forkedFrom !== undefined ? { forkedFrom: checked.forkedFrom } : {}),
    ...(checked.activeAgent !== undefined ? { activeAgent: checked.activeAgent } : {}),
    state: { value: state.value, context: state.context },
    context: checked.context,
  };
}

/** Who a snapshot belongs to and how far it got: see {@link readSnapshotHeader}. */
export interface SnapshotHeader {
  agent: string;
  agentVersion: string;
  runId: string;
  turn: number;
  seq: number;
  /** The format version the snapshot was written in. */
  version: number;
  /** Whether it is in the encrypted form. */
  encrypted: boolean;
  /**
   * What makes this snapshot one of a kind: the `iv` of an encrypted snapshot, the signature of a
   * signed one (absent from a plain one). Each string form of a snapshot TurnKit wrote has its own
   * (encrypted snapshots are read strictly), so with `secret` it keys replay protection.
   */
  nonce?: string;
}

/**
 * Reads a snapshot's header (agent, run id, turn) without parsing its transcript: for routing a
 * snapshot a client sent back, before resuming it. Works on signed, plain and encrypted snapshots.
 * With `secret`, the signature is checked (or the encrypted content authenticated) first; the
 * transcript and state are not validated (the resume that follows does that).
 */
export function readSnapshotHeader(
  snapshot: string,
  options: { secret?: string | undefined } = {},
): SnapshotHeader {
  if (typeof snapshot !== 'string') throw invalidSnapshot(`expected a string, got ${typeof snapshot}`);
  const cut = encryptedAt(snapshot);
  const secret = secretOf(options);
  if (secret) {
    if (cut > 0) decryptEnvelope(snapshot, secret);
    else verifySignature(snapshot, secret);
  }
  // The header keys come before "state" (plain) or "enc" (encrypted) in every snapshot TurnKit
  // writes, and a key cannot occur unescaped inside a JSON string, so the text before is the header.
  const end = cut > 0 ? cut : snapshot.indexOf(',"state":');
  const envelope = end > 0 ? parseObject(`${snapshot.slice(0, end)}}`) : parseObject(snapshot);
  if (envelope.format !== FORMAT) throw invalidSnapshot(`format is ${JSON.stringify(envelope.format)}`);
  const { agent, agentVersion, runId, turn, seq, version } = envelope;
  if (
    typeof agent !== 'string' ||
    typeof agentVersion !== 'string' ||
    typeof runId !== 'string' ||
    typeof turn !== 'number' ||
    typeof seq !== 'number' ||
    typeof version !== 'number'
  ) {
    throw invalidSnapshot('its header (version, agent, agentVersion, runId, turn, seq) is incomplete');
  }
  const nonce = cut > 0 ? encryptedNonce(snapshot) : signatureIn(snapshot);
  return {
    agent,
    agentVersion,
    runId,
    turn,
    seq,
    version,
    encrypted: cut > 0,
    ...(nonce !== null ? { nonce } : {}),
  };
}

function parseObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidSnapshot('not JSON', error);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidSnapshot('not a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * Validates a snapshot string and returns it decoded, for inspection (status, transcript, pending
 * interactions). With `secret`, the signature is checked first (an encrypted snapshot needs it).
 */
export function parseSnapshot(
  snapshot: string,
  options: { secret?: string | undefined } = {},
): DecodedSnapshot {
  const secret = secretOf(options);
  return checkShape(readEnvelope(snapshot, secret ? { secret } : {}));
}

/** The `secret` of an options argument from a caller, checked. */
function secretOf(options: { secret?: string | undefined } | undefined | null): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || (options.secret !== undefined && typeof options.secret !== 'string')) {
    throw new TurnkitError('CONFIG_INVALID', 'The options must be { secret?: string }.');
  }
  return options.secret || undefined;
}
