/**
 * The demo's server: the TurnKit HTTP handler under `/api` (store mode, a file store) and the page
 * at `/`, on one Web-standard fetch function served by `@hono/node-server`.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { fileStore } from '@turnkit/adapters/file';
import { createHandler } from '@turnkit/adapters/http';
import { createDemoAgent, type DemoAgentOptions } from './agent.js';
import { initialFreezer } from './freezer.js';
import { staticFiles } from './static.js';

/** Options of {@link createDemoHandler}. */
export interface DemoOptions extends DemoAgentOptions {
  /** Where runs are kept (default `.turnkit/web-runs`). */
  dataDir?: string;
}

/** The demo as one fetch function: `/api/*` is the TurnKit handler, everything else the page. */
export function createDemoHandler(options: DemoOptions = {}): (request: Request) => Promise<Response> {
  const api = createHandler({
    agent: createDemoAgent(options),
    store: fileStore(options.dataDir ?? '.turnkit/web-runs'),
    basePath: '/api',
    context: () => initialFreezer(),
  });
  const page = staticFiles();
  return async (request) => {
    const path = new URL(request.url).pathname;
    return path === '/api' || path.startsWith('/api/') ? api(request) : page(request);
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
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: createDemoHandler(options), port: options.port ?? 8787, hostname });
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const host = hostname === '127.0.0.1' || hostname === '0.0.0.0' ? 'localhost' : hostname;
      resolve({
        url: `http://${host}:${port}/`,
        close: () =>
          new Promise((done) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
