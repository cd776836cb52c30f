/**
 * The runtime's own synchronous crypto, when it offers one through `process.getBuiltinModule`
 * (Node ≥ 20.16, Bun, Deno, Workers with `nodejs_compat`): found at run time, never imported, so
 * no bundler sees a Node module and a runtime without it (Workers, Vercel Edge, a browser) simply
 * gets `null` and the pure-JS path of crypto.ts.
 *
 * Why it exists: every caller of the snapshot crypto is synchronous, so the portable path is
 * `@noble/*` in pure JS, about ten times slower than native SHA-256 — measured, a signed
 * pause → resume cycle took 1.8× as long at 10 messages and 2× at 1000 (DESIGN §18 allows 1.10×).
 * Web Crypto would not help there: it is async, and its per-call cost alone (~0.1 ms in Node)
 * exceeds a whole 10-message cycle's budget. Both paths compute the same bytes (tests check it).
 */

/** The part of Node's crypto module used here, typed without importing it. */
interface NodeCryptoModule {
  createHmac(algorithm: 'sha256', key: string): NodeHash;
  createHash(algorithm: 'sha256'): NodeHash;
  createCipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array): NodeCipher;
  createDecipheriv(
    algorithm: 'aes-256-gcm',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: number },
  ): NodeDecipher;
}
interface NodeHash {
  update(data: string): NodeHash;
  digest(encoding: 'hex'): string;
}
interface NodeCipher {
  setAAD(aad: Uint8Array): void;
  update(data: string, encoding: 'utf8'): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}
interface NodeDecipher {
  setAAD(aad: Uint8Array): void;
  setAuthTag(tag: Uint8Array): void;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

/** The algorithms crypto.ts needs, over UTF-8 text; the pure-JS and native paths both implement them. */
export interface CryptoPrimitives {
  hmacHex(pieces: readonly string[], secret: string): string;
  sha256Hex(text: string): string;
  seal(key: Uint8Array, iv: Uint8Array, aad: string, plain: string): { ct: Uint8Array; tag: Uint8Array };
  /** Throws if the key, IV, AAD, ciphertext or tag is off. */
  open(key: Uint8Array, iv: Uint8Array, aad: string, ct: Uint8Array, tag: Uint8Array): string;
}

const utf8 = new TextEncoder();

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function nodeCrypto(): NodeCryptoModule | null {
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const found = host?.getBuiltinModule?.('crypto') as Partial<NodeCryptoModule> | undefined;
    return typeof found?.createHmac === 'function' && typeof found.createCipheriv === 'function'
      ? (found as NodeCryptoModule)
      : null;
  } catch {
    return null;
  }
}

/** The native primitives, or null where the runtime offers none synchronously. */
export function nativePrimitives(): CryptoPrimitives | null {
  const node = nodeCrypto();
  if (!node) return null;
  return {
    hmacHex(pieces, secret) {
      const mac = node.createHmac('sha256', secret);
      for (const piece of pieces) mac.update(piece);
      return mac.digest('hex');
    },
    sha256Hex: (text) => node.createHash('sha256').update(text).digest('hex'),
    seal(key, iv, aad, plain) {
      const cipher = node.createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(utf8.encode(aad));
      const ct = concat(cipher.update(plain, 'utf8'), cipher.final());
      return { ct, tag: cipher.getAuthTag() };
    },
    open(key, iv, aad, ct, tag) {
      const decipher = node.createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tag.length });
      decipher.setAAD(utf8.encode(aad));
      decipher.setAuthTag(tag);
      return new TextDecoder().decode(concat(decipher.update(ct), decipher.final()));
    },
  };
}
