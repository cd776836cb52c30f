/**
 * The demo's server: the TurnKit HTTP handler under `/api` (store mode, a file store) and the page
 * at `/`, on one Web-standard fetch function served by `@hono/node-server`. A sweeper calls the
 * handler's `POST /api/sweep` every second, so a question whose time is up is resolved and its run
 * goes on while the page watches. Each run's context is a fresh freezer whose forms speak the
 * language the page asked in (its `Accept-Language`).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { fileStore } from '@turnkit/adapters/file';
import { createHandler } from '@turnkit/adapters/http';
import { createDemoAgent, type DemoAgentOptions } from './agent.js';
import { initialFreezer } from './freezer.js';
import { staticFiles } from './static.js';
import { startSweeper } from './sweeper.js';

/** Options of {@link createDemoHandler} and {@link startDemoServer}. */
export interface DemoOptions extends DemoAgentOptions {
  /** Where runs are kept (default `.turnkit/web-runs`). */
  dataDir?: string;
  /** How often the server sweeps timed-out questions, in ms (default 1000; 0: never). */
  sweepMs?: number;
  /** Where the handler reports what went wrong (default: `console.error`). */
  onError?: (error: unknown) => void;
}

const API = '/api';

/** `zh` when the request prefers Chinese, else `en`. */
function langOf(request: Request): 'en' | 'zh' {
  return /^zh\b/i.test(request.headers.get('accept-language') ?? '') ? 'zh' : 'en';
}

/**
 * The demo as one fetch function: `/api/*` is the TurnKit handler, everything else the page. With
 * `sweepToken`, `POST /api/sweep` resolves what has timed out.
 */
export function createDemoHandler(
  options: DemoOptions & { sweepToken?: string } = {},
): (request: Request) => Promise<Response> {
  const api = createHandler({
    agent: createDemoAgent(options),
    store: fileStore(options.dataDir ?? '.turnkit/web-runs'),
    basePath: API,
    context: (request) => initialFreezer(langOf(request)),
    ...(options.sweepToken ? { sweepToken: options.sweepToken } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const page = staticFiles();
  return async (request) => {
    const path = new URL(request.url).pathname;
    return path === API || path.startsWith(`${API}/`) ? api(request) : page(request);
  };
}

/** A running demo server. */
export interface DemoServer {
  url: string;
  close(): Promise<void>;
}

/** Starts the demo on `port` (0: any free port) of `hostname` (default 127.0.0.1). */
export function startDemoServer(
  options: DemoOptions & { port?: number; hostname?: string } = {},
): Promise<DemoServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  // The sweep route's token never leaves this process: only the sweeper below calls it.
  const sweepToken = randomBytes(24).toString('base64url');
  const fetch = createDemoHandler({ ...options, sweepToken });
  const intervalMs = options.sweepMs ?? 1000;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: options.port ?? 8787, hostname });
    server.once('error', reject);
    server.once('listening', () => {
      const sweeper =
        intervalMs > 0 ? startSweeper(fetch, { token: sweepToken, basePath: API, intervalMs }) : null;
      const { port } = server.address() as AddressInfo;
      const host = hostname === '127.0.0.1' || hostname === '0.0.0.0' ? 'localhost' : hostname;
      resolve({
        url: `http://${host}:${port}/`,
        close: async () => {
          await sweeper?.stop();
          await new Promise<void>((done) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          });
        },
      });
    });
  });
}
