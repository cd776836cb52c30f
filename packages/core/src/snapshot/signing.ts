/**
 * Signed snapshots (DESIGN §4): the signed text is the unsigned envelope text with its final `}`
 * replaced by `,"sig":"<64 hex>"}`, the HMAC-SHA256 of the unsigned text. Verification works on the
 * exact bytes, before anything is parsed, and never on a re-serialization.
 *
 * The HMAC is synchronous (`parseSnapshot` and `readSnapshotHeader` verify and are synchronous,
 * and so is the snapshot a turn writes), so it is not Web Crypto's async `crypto.subtle`: it is
 * `@noble/hashes` in pure JS on runtimes without native crypto (Workers, Vercel Edge), and the
 * runtime's native HMAC where `process.getBuiltinModule` offers one (Node, Bun, Deno), which keeps
 * the signed cycle as fast as before (see crypto.ts and native-crypto.ts). The signature is
 * compared in constant time, as hex text of fixed length.
 */
import { SnapshotError } from '../errors.js';
import { constantTimeEqual, hmacHex } from './crypto.js';

/** `,"sig":"<64 hex>"}`: what signing puts in place of the envelope's final `}`. */
const SIGNATURE_TAIL = /^,"sig":"([0-9a-f]{64})"\}$/;
const SIGNATURE_TAIL_LENGTH = 74;

/** Signs an unsigned envelope text. */
export function signText(text: string, secret: string): string {
  return withSignature(text, signatureOf([text], secret));
}

/**
 * The signature (64 lowercase hex) of the unsigned envelope text made of `pieces` in order: the
 * HMAC is fed piece by piece, so a text kept in parts (row layout 2) is signed without joining it.
 */
export function signatureOf(pieces: readonly string[], secret: string): string {
  return hmacHex(pieces, secret);
}

/** An unsigned envelope text with `sig` put in place of its final `}`. */
export function withSignature(text: string, sig: string): string {
  return `${text.slice(0, -1)},"sig":"${sig}"}`;
}

/** The signature (64 lowercase hex) a signed snapshot ends with, or null when it has none. */
export function signatureIn(snapshot: string): string | null {
  const cut = snapshot.length - SIGNATURE_TAIL_LENGTH;
  return cut > 0 ? (SIGNATURE_TAIL.exec(snapshot.slice(cut))?.[1] ?? null) : null;
}

/**
 * Checks the signature over the exact unsigned bytes (the text before the tail, then `}`), before
 * anything is parsed. The bytes are fed to the HMAC in two pieces rather than copied into one string.
 */
export function verifySignature(snapshot: string, secret: string): void {
  const cut = snapshot.length - SIGNATURE_TAIL_LENGTH;
  const match = cut > 0 ? SIGNATURE_TAIL.exec(snapshot.slice(cut)) : null;
  if (!match) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot is not signed, but this agent requires signed snapshots: pass the snapshot string exactly as TurnKit returned it.',
    );
  }
  if (!constantTimeEqual(hmacHex([snapshot.slice(0, cut), '}'], secret), match[1]!)) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot signature does not match: it was edited, or signed with another secret. Use the snapshot exactly as TurnKit returned it, with the same `snapshot.secret`.',
    );
  }
}
