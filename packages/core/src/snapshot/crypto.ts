/**
 * The only place core computes anything cryptographic (DESIGN §18): HMAC-SHA-256 (signatures),
 * SHA-256 (schema hashes), HKDF-SHA-256 + AES-256-GCM (encrypted snapshots) and random bytes (run
 * ids, IVs), with no Node import. Randomness is `globalThis.crypto.getRandomValues`. Every caller
 * is synchronous — `parseSnapshot`, `readSnapshotHeader`, `defineTool` and the snapshot a turn
 * writes — and Web Crypto's `crypto.subtle` is async only, so the algorithms are `@noble/hashes` /
 * `@noble/ciphers` (small, audited, pure JS), replaced by the runtime's native crypto where it
 * offers it synchronously (native-crypto.ts says why). The outputs are byte for byte what Node's
 * crypto module computed before (the fixture and reference tests check both paths).
 */
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type CryptoPrimitives, nativePrimitives } from './native-crypto.js';

const utf8 = new TextEncoder();
const TAG_BYTES = 16;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`. */
function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** `n` bytes from the runtime's cryptographic random source (Web Crypto, present on every runtime core names). */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/** The pure-JS primitives: what runs where the runtime has no synchronous native crypto. */
export const portablePrimitives: CryptoPrimitives = {
  hmacHex(pieces, secret) {
    const mac = hmac.create(sha256, utf8.encode(secret));
    for (const piece of pieces) mac.update(utf8.encode(piece));
    return hex(mac.digest());
  },
  sha256Hex: (text) => hex(sha256(utf8.encode(text))),
  seal(key, iv, aad, plain) {
    const sealed = gcm(key, iv, utf8.encode(aad)).encrypt(utf8.encode(plain));
    return { ct: sealed.subarray(0, -TAG_BYTES), tag: sealed.subarray(-TAG_BYTES) };
  },
  open(key, iv, aad, ct, tag) {
    const sealed = new Uint8Array(ct.length + tag.length);
    sealed.set(ct);
    sealed.set(tag, ct.length);
    return new TextDecoder().decode(gcm(key, iv, utf8.encode(aad)).decrypt(sealed));
  },
};

const primitives = nativePrimitives() ?? portablePrimitives;

/** HMAC-SHA-256 (64 lowercase hex) of the UTF-8 text made of `pieces` in order, keyed by the UTF-8 `secret`. */
export function hmacHex(pieces: readonly string[], secret: string): string {
  return primitives.hmacHex(pieces, secret);
}

/** SHA-256 (64 lowercase hex) of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return primitives.sha256Hex(text);
}

/**
 * Whether two strings of the same length are equal, in time that depends only on their length
 * (never on where they first differ), so a forger learns nothing from how long a refusal takes.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** HKDF-SHA-256 of the UTF-8 `secret` with UTF-8 `salt` and `info`: `length` bytes (cached by its caller). */
export function hkdfBytes(secret: string, salt: string, info: string, length: number): Uint8Array {
  return hkdf(sha256, utf8.encode(secret), utf8.encode(salt), utf8.encode(info), length);
}

/** AES-256-GCM of the UTF-8 `plain` with the UTF-8 `aad`: the ciphertext and the 16-byte tag apart. */
export function sealText(
  key: Uint8Array,
  iv: Uint8Array,
  aad: string,
  plain: string,
): { ct: Uint8Array; tag: Uint8Array } {
  return primitives.seal(key, iv, aad, plain);
}

/** Opens what {@link sealText} sealed; throws if the key, IV, AAD, ciphertext or tag is off. */
export function openText(
  key: Uint8Array,
  iv: Uint8Array,
  aad: string,
  ct: Uint8Array,
  tag: Uint8Array,
): string {
  return primitives.open(key, iv, aad, ct, tag);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = new Map(Array.from(B64, (char, index) => [char.charCodeAt(0), index]));

/** Unpadded base64url, as Node writes it (its buffers' `toString('base64url')`). */
export function toBase64url(bytes: Uint8Array): string {
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out.push(B64[(n >> (18 - 6 * c)) & 63]!);
  }
  return out.join('');
}

/** The bytes of unpadded base64url text, or null if it is not base64url. */
export function fromBase64url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const index = B64_INDEX.get(text.charCodeAt(i));
    if (index === undefined) return null;
    value = (value << 6) | index;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 255;
    }
  }
  return bytes;
}
