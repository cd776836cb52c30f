/**
 * Access control, checked before anything else: a request that fails it gets the same bare 401
 * whatever it asked for, so it learns nothing (not even whether a run exists).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Decides whether a request may use the handler. */
export type Authorize = (request: Request) => boolean | Promise<boolean>;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Compares two secrets in constant time: both are hashed first, so the comparison sees two buffers
 * of the same length whatever the lengths of the inputs (a length mismatch leaks nothing either).
 */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Builds the access check from the handler's `token` and `authorize` options: with both, both must
 * pass; with neither, every request passes. An `authorize` that throws denies (and is reported).
 */
export function accessCheck(options: {
  token?: string;
  authorize?: Authorize;
  onError: (error: unknown, request: Request) => void;
}): (request: Request) => Promise<boolean> {
  const { token, authorize, onError } = options;
  return async (request) => {
    if (token !== undefined) {
      const given = bearerToken(request);
      // Compare even when the header is missing, so both paths take the same time.
      const matches = safeEqual(given ?? '', token);
      if (given === null || !matches) return false;
    }
    if (authorize) {
      try {
        return (await authorize(request)) === true;
      } catch (error) {
        onError(error, request);
        return false;
      }
    }
    return true;
  };
}
