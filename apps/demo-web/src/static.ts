/**
 * The page's static files, read once from `public/` and served from memory by exact name: no path
 * from a request ever reaches the file system. Every page response carries a strict CSP (the page
 * uses no inline script or style).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The folder of the page (beside `src/` and `dist/`). */
export const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));

/** A handler serving the files of `dir` at `/<name>`, and `index.html` at `/`. */
export function staticFiles(dir: string = PUBLIC_DIR): (request: Request) => Response {
  const files = new Map<string, { body: string; type: string }>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) files.set(`/${name}`, { body: readFileSync(join(dir, name), 'utf8'), type });
  }
  return (request) => {
    const path = new URL(request.url).pathname;
    const file = files.get(path === '/' ? '/index.html' : path);
    if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return new Response('Not found', {
        status: 404,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    return new Response(request.method === 'HEAD' ? null : file.body, {
      headers: { 'content-type': file.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS },
    });
  };
}
