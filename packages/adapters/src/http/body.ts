/**
 * Reading a JSON request body with a hard size limit. The limit is enforced while the bytes arrive
 * (a wrong or missing `Content-Length` changes nothing), and a body that is not JSON is a 400, never
 * a 500. A body stream that breaks (the client aborted its upload) is the client's doing: a 400,
 * not a server fault, so it never reaches `onError` or the logs. A JSON media type is required on every POST, so a cross-site form cannot post here without
 * a CORS preflight (cookie-based `authorize` callbacks stay safe from CSRF).
 */
import { HttpProblem } from './problem.js';

/** Default `maxBodyBytes`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem(
    'BODY_TOO_LARGE',
    `The request body is larger than ${maxBytes} bytes. Send less, or raise the handler's maxBodyBytes.`,
  );
}

/** Reads at most `maxBytes` bytes of the body; throws `BODY_TOO_LARGE` as soon as there are more. */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw new HttpProblem(
        'BAD_REQUEST',
        'The request body could not be read to its end (the upload was interrupted). Send the request again.',
      );
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The parsed JSON body of a POST (`{}` when empty), within `maxBytes`. */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!JSON_MEDIA_TYPE.test(type)) {
    throw new HttpProblem(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the request body as JSON with `Content-Type: application/json` (also when it is empty).',
    );
  }
  const bytes = await readLimited(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpProblem('BAD_REQUEST', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpProblem('BAD_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
