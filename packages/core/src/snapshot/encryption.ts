/**
 * Encrypted snapshots (DESIGN §12): with `snapshot: { secret, encrypt: true }` a client holding the
 * snapshot reads neither transcript nor context. The form is the header in clear, then
 * `"enc":{"alg":"A256GCM","iv","tag","ct"}`: AES-256-GCM with a key derived from the secret by
 * HKDF-SHA256, the exact header bytes as additional authenticated data, the whole plain envelope
 * as plaintext. GCM authenticates, so there is no `sig`.
 *
 * Opening is synchronous (`parseSnapshot`, `readSnapshotHeader`), so is sealing (the snapshot a
 * turn writes): AES-256-GCM is `@noble/ciphers` and HKDF `@noble/hashes` (pure JS, audited) where
 * the runtime has no native crypto, the runtime's own AES-GCM where it does (see crypto.ts); the
 * IV comes from Web Crypto's `getRandomValues`. HKDF runs once per secret, so it is always noble.
 */
import { SnapshotError } from '../errors.js';
import { fromBase64url, hkdfBytes, openText, randomBytes, sealText, toBase64url } from './crypto.js';

/** `,"enc":`: where the clear header of an encrypted snapshot ends. */
export const ENCRYPTED_MARK = ',"enc":';
const ALG = 'A256GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The one form of the `enc` member: this key order, no whitespace, unpadded base64url values. */
const ENC_FORM = new RegExp(
  `^\\{"alg":"${ALG}","iv":"([A-Za-z0-9_-]*)","tag":"([A-Za-z0-9_-]*)","ct":"([A-Za-z0-9_-]*)"\\}$`,
);

const keys = new Map<string, Uint8Array>();

/** The AES key of a secret; HKDF is cheap but not free, and an agent reuses one secret. */
function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = hkdfBytes(secret, 'turnkit.snapshot', 'turnkit.snapshot.enc.v2', 32);
    if (keys.size > 64) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/**
 * Encrypts `plain` (the unsigned envelope text) under `header` (the clear header text, `{` … the
 * last header value, without the closing `}`).
 */
export function encryptEnvelope(header: string, plain: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const { ct, tag } = sealText(keyOf(secret), iv, header, plain);
  const enc = { alg: ALG, iv: toBase64url(iv), tag: toBase64url(tag), ct: toBase64url(ct) };
  return `${header}${ENCRYPTED_MARK}${JSON.stringify(enc)}}`;
}

function tampered(detail: string): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_TAMPERED',
    `The encrypted snapshot cannot be opened (${detail}): it was edited, or encrypted with another secret. Use the snapshot exactly as TurnKit returned it, with the same \`snapshot.secret\`.`,
  );
}

/**
 * The `enc` member of an encrypted snapshot, read strictly: it must be exactly the bytes
 * {@link encryptEnvelope} writes (this key order, no whitespace, no other key, unpadded canonical
 * base64url) and end the snapshot. Only the clear header is authenticated byte for byte, so a
 * lenient reader would let one snapshot be re-encoded into many different strings that all open
 * (and each pass a replay check keyed on the text). Anything else: SNAPSHOT_TAMPERED.
 */
function readEnc(snapshot: string, cut: number): { iv: Uint8Array; tag: Uint8Array; ct: Uint8Array } {
  const text = snapshot.slice(cut + ENCRYPTED_MARK.length, -1);
  const match = ENC_FORM.exec(text);
  if (!match || !snapshot.endsWith('}'))
    throw tampered(`"enc" must be exactly {"alg":"${ALG}","iv","tag","ct"}`);
  const [iv, tag, ct] = [match[1]!, match[2]!, match[3]!].map(fromBase64url);
  if (!iv || !tag || !ct) throw tampered('its iv, tag or ct is not base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw tampered('its iv or tag has the wrong length');
  // Non-zero padding bits decode to the same bytes: only the canonical text is accepted.
  if (toBase64url(iv) !== match[1] || toBase64url(tag) !== match[2] || toBase64url(ct) !== match[3]) {
    throw tampered('its iv, tag or ct is not canonical base64url');
  }
  return { iv, tag, ct };
}

/**
 * The nonce of an encrypted snapshot (its `iv`), fresh for each snapshot TurnKit seals: with the
 * strict reading of `enc`, one sealed snapshot has exactly one string form. SNAPSHOT_TAMPERED when
 * `enc` is not in that form.
 */
export function encryptedNonce(snapshot: string): string {
  return toBase64url(readEnc(snapshot, snapshot.indexOf(ENCRYPTED_MARK)).iv);
}

/** Decrypts an encrypted snapshot and returns the plain envelope text. Anything off: SNAPSHOT_TAMPERED. */
export function decryptEnvelope(snapshot: string, secret: string): string {
  const cut = snapshot.indexOf(ENCRYPTED_MARK);
  const { iv, tag, ct } = readEnc(snapshot, cut);
  try {
    return openText(keyOf(secret), iv, snapshot.slice(0, cut), ct, tag);
  } catch {
    throw tampered('authentication failed');
  }
}
