/**
 * The page's files, served from memory by exact name: the HTML and CSS of `public/`, and the React
 * bundle tsup writes to `dist/client/`. They are read once at start-up, so no path from a request
 * ever reaches the file system. Every response carries a strict Content-Security-Policy (the page
 * has no inline script or style).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files of the page by their path (`/index.html`, `/app.js`…). */
export type PageFiles = Map<string, { body: string; type: string }>;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The HTML and CSS (beside `src/` and `dist/`). */
export const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
/** Where tsup writes the React bundle (`npm run build`, or the tests' global setup). */
export const BUNDLE_DIR = fileURLToPath(new URL('../dist/client/', import.meta.url));

/** Reads the servable files of `dirs` (later folders win); a folder that does not exist is skipped. */
export function readPage(dirs: string[] = [PUBLIC_DIR, BUNDLE_DIR]): PageFiles {
  const files: PageFiles = new Map();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (type) files.set(`/${name}`, { body: readFileSync(join(dir, name), 'utf8'), type });
    }
  }
  return files;
}

/** A handler serving `files` at their paths, and `/index.html` at `/`. */
export function pageHandler(files: PageFiles): (request: Request) => Response {
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
