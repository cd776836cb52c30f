/**
 * The cryptography of the handler and its protocol mounts, with no Node import (DESIGN §18), the
 * same choice as core's snapshot/crypto.ts. The small HMACs (bearer-token checks, events tokens,
 * the MCP server's requestState key) must stay synchronous — `eventsToken` is a public synchronous
 * function — so they are `@noble/hashes` (small, audited, pure JS: a few microseconds on these
 * short inputs). Hashing a whole snapshot (replay keys) happens where the caller is async anyway,
 * on inputs that can be large, so it is Web Crypto's native `crypto.subtle.digest`. Randomness is
 * `crypto.getRandomValues`. Every output is byte for byte what Node's crypto module computed.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

const utf8 = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** Unpadded base64url of `bytes` (what Node's `digest('base64url')` writes). */
export function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** HMAC-SHA-256 of the UTF-8 `text`, keyed by the UTF-8 `secret`. */
export function hmacSha256(secret: string, text: string): Uint8Array {
  return hmac(sha256, utf8.encode(secret), utf8.encode(text));
}

/** SHA-256 (64 lowercase hex) of the UTF-8 `text`, synchronous: for short texts. */
export function sha256HexSync(text: string): string {
  return toHex(sha256(utf8.encode(text)));
}

/** SHA-256 (64 lowercase hex) of the UTF-8 `text`, by the runtime's native Web Crypto. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(text))));
}

/** `n` bytes from the runtime's cryptographic random source. */
export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/**
 * Compares two secrets in constant time: both are hashed first, so the comparison sees two digests
 * of the same length whatever the lengths of the inputs (a length mismatch leaks nothing either).
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = sha256(utf8.encode(given));
  const b = sha256(utf8.encode(expected));
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
