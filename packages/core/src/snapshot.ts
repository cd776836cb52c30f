/**
 * The snapshot string (DESIGN §4): a versioned JSON envelope around the machine's state. The
 * transcript is plain JSON, written once by `JSON.stringify`; only the application `context` goes
 * through superjson. With a secret the exact bytes are HMAC-signed, and verified before parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SuperJSONResult } from 'superjson';
import { SnapshotError } from './errors.js';
import type { LoopContext, LoopStateName } from './machine.js';
import { checkTranscripts, envelopeSchema } from './snapshot-shape.js';

/** The only snapshot format version this release writes and reads. */
export const SNAPSHOT_VERSION = 1;
const FORMAT = 'turnkit.snapshot';

/** A snapshot decoded for inspection (see {@link parseSnapshot}). */
export interface DecodedSnapshot {
  format: typeof FORMAT;
  version: typeof SNAPSHOT_VERSION;
  agent: string;
  agentVersion: string;
  runId: string;
  /** Turns (calls of runTurn, answerQuestion…) so far. */
  turn: number;
  /** The last event sequence number used. */
  seq: number;
  createdAt: string;
  /** The machine's persisted state: its state name and context (transcript, current step…). */
  state: { value: LoopStateName; context: LoopContext };
  /** The application context, serialized by superjson; null when there is none. */
  context: SuperJSONResult | null;
  /** Set by sessions while a worker holds the run. */
  lease?: { owner: string; expiresAt: string };
}

/** `,"sig":"<64 hex>"}`: what signing puts in place of the envelope's final `}`. */
const SIGNATURE_TAIL = /^,"sig":"([0-9a-f]{64})"\}$/;
const SIGNATURE_TAIL_LENGTH = 74;

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** Serializes a decoded snapshot to its string form, signed when `secret` is given. */
export function encodeSnapshot(decoded: DecodedSnapshot, secret?: string): string {
  const text = JSON.stringify(decoded);
  if (!secret) return text;
  return `${text.slice(0, -1)},"sig":"${hmac(secret, text)}"}`;
}

/**
 * Checks the signature over the exact unsigned bytes (the text before the tail, then `}`), before
 * anything is parsed. The bytes are fed to the HMAC in two pieces rather than copied into one string.
 */
function verifySignature(snapshot: string, secret: string): void {
  const cut = snapshot.length - SIGNATURE_TAIL_LENGTH;
  const match = cut > 0 ? SIGNATURE_TAIL.exec(snapshot.slice(cut)) : null;
  if (!match) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot is not signed, but this agent requires signed snapshots: pass the snapshot string exactly as TurnKit returned it.',
    );
  }
  const expected = createHmac('sha256', secret).update(snapshot.slice(0, cut)).update('}').digest();
  if (!timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'))) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot signature does not match: it was edited, or signed with another secret. Use the snapshot exactly as TurnKit returned it, with the same `snapshot.secret`.',
    );
  }
}

/** The SNAPSHOT_INVALID error, with what was wrong. */
export function invalidSnapshot(detail: string, cause?: unknown): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_INVALID',
    `This is not a readable TurnKit snapshot (${detail}). Pass the \`snapshot\` string of a TurnResult, unchanged.`,
    { cause },
  );
}

/** Signature and format/version checks; returns the parsed, not yet shape-checked envelope. */
export function readEnvelope(snapshot: unknown, secret?: string): Record<string, unknown> {
  if (typeof snapshot !== 'string') throw invalidSnapshot(`expected a string, got ${typeof snapshot}`);
  if (secret) verifySignature(snapshot, secret);
  // The signed text parses to the unsigned envelope plus `sig`, which is dropped below.
  const envelope = parseObject(snapshot);
  if (envelope.format !== FORMAT) throw invalidSnapshot(`format is ${JSON.stringify(envelope.format)}`);
  if (envelope.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      'SNAPSHOT_VERSION',
      `Snapshot format version ${JSON.stringify(envelope.version)} is not supported: this TurnKit reads version ${SNAPSHOT_VERSION}. Resume it with the TurnKit release that wrote it, or upgrade.`,
    );
  }
  delete envelope.sig;
  return envelope;
}

/** Shape check of an envelope (after signature, format and any migration). */
export function checkShape(envelope: unknown): DecodedSnapshot {
  const result = envelopeSchema.safeParse(envelope);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw invalidSnapshot(`${issue.path.join('.') || 'envelope'}: ${issue.message}`);
  }
  const problem = checkTranscripts(
    result.data.state.context as unknown as LoopContext,
    result.data.state.value,
  );
  if (problem) throw invalidSnapshot(problem);
  // zod returns fresh objects holding only the known keys; messages keep their parsed elements.
  return { ...result.data, format: FORMAT, version: SNAPSHOT_VERSION } as unknown as DecodedSnapshot;
}

/** Who a snapshot belongs to and how far it got: see {@link readSnapshotHeader}. */
export interface SnapshotHeader {
  agent: string;
  agentVersion: string;
  runId: string;
  turn: number;
  seq: number;
}

/**
 * Reads a snapshot's header (agent, run id, turn) without parsing its transcript: for routing a
 * snapshot a client sent back, before resuming it. With `secret`, the signature is checked first;
 * the transcript and state are not validated (the resume that follows does that).
 */
export function readSnapshotHeader(snapshot: string, options: { secret?: string } = {}): SnapshotHeader {
  if (typeof snapshot !== 'string') throw invalidSnapshot(`expected a string, got ${typeof snapshot}`);
  if (options.secret) verifySignature(snapshot, options.secret);
  // The header keys come before "state" in every snapshot TurnKit writes, and a key cannot occur
  // unescaped inside a JSON string, so the text up to the first `,"state":` is the header.
  const end = snapshot.indexOf(',"state":');
  const envelope = end > 0 ? parseObject(`${snapshot.slice(0, end)}}`) : parseObject(snapshot);
  if (envelope.format !== FORMAT) throw invalidSnapshot(`format is ${JSON.stringify(envelope.format)}`);
  const { agent, agentVersion, runId, turn, seq } = envelope;
  if (
    typeof agent !== 'string' ||
    typeof agentVersion !== 'string' ||
    typeof runId !== 'string' ||
    typeof turn !== 'number' ||
    typeof seq !== 'number'
  ) {
    throw invalidSnapshot('its header (agent, agentVersion, runId, turn, seq) is incomplete');
  }
  return { agent, agentVersion, runId, turn, seq };
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
 * interactions). With `secret`, the signature is checked first.
 */
export function parseSnapshot(snapshot: string, options: { secret?: string } = {}): DecodedSnapshot {
  return checkShape(readEnvelope(snapshot, options.secret));
}
