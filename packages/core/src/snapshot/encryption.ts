/**
 * Encrypted snapshots (DESIGN §12): with `snapshot: { secret, encrypt: true }` a client holding the
 * snapshot reads neither transcript nor context. The form is the header in clear, then
 * `"enc":{"alg":"A256GCM","iv","tag","ct"}`: AES-256-GCM with a key derived from the secret by
 * HKDF-SHA256, the exact header bytes as additional authenticated data, the whole plain envelope
 * as plaintext. GCM authenticates, so there is no `sig`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { SnapshotError } from '../errors.js';

/** `,"enc":`: where the clear header of an encrypted snapshot ends. */
export const ENCRYPTED_MARK = ',"enc":';
const ALG = 'A256GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keys = new Map<string, Buffer>();

/** The AES key of a secret; HKDF is cheap but not free, and an agent reuses one secret. */
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'turnkit.snapshot', 'turnkit.snapshot.enc.v2', 32));
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
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  cipher.setAAD(Buffer.from(header, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const enc = { alg: ALG, iv: iv.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
  return `${header}${ENCRYPTED_MARK}${JSON.stringify({ ...enc, ct: ct.toString('base64url') })}}`;
}

function tampered(detail: string): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_TAMPERED',
    `The encrypted snapshot cannot be opened (${detail}): it was edited, or encrypted with another secret. Use the snapshot exactly as TurnKit returned it, with the same \`snapshot.secret\`.`,
  );
}

/** Decrypts an encrypted snapshot and returns the plain envelope text. Anything off: SNAPSHOT_TAMPERED. */
export function decryptEnvelope(snapshot: string, secret: string): string {
  const cut = snapshot.indexOf(ENCRYPTED_MARK);
  let enc: { alg?: unknown; iv?: unknown; tag?: unknown; ct?: unknown };
  try {
    enc = JSON.parse(snapshot.slice(cut + ENCRYPTED_MARK.length, -1));
  } catch {
    throw tampered('its "enc" member is not JSON');
  }
  if (
    enc.alg !== ALG ||
    typeof enc.iv !== 'string' ||
    typeof enc.tag !== 'string' ||
    typeof enc.ct !== 'string'
  ) {
    throw tampered(`"enc" must be {"alg":"${ALG}","iv","tag","ct"}`);
  }
  const iv = Buffer.from(enc.iv, 'base64url');
  const tag = Buffer.from(enc.tag, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw tampered('its iv or tag has the wrong length');
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(snapshot.slice(0, cut), 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(enc.ct, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw tampered('authentication failed');
  }
}
