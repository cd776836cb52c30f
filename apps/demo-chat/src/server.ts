/**
 * The demo's server: the web demo's LN2 agent behind `createHandler` with the AI SDK protocol
 * mounted (`POST /api/chat` is what `useChat` posts, `GET /api/chat/:id` the chat after a reload),
 * in store mode with a file store, and the page beside it — one Web-standard fetch function served
 * by `@hono/node-server`. The chat id is the run id; each run's context is a fresh freezer.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { aiSdkProtocol } from '@turnkit/adapters/ai-sdk';
import { fileStore } from '@turnkit/adapters/file';
import { createHandler } from '@turnkit/adapters/http';
import { createDemoAgent, DEFAULT_QUESTION_TIMEOUT_MS, type DemoAgentOptions } from '@turnkit/demo-web/agent';
import { initialFreezer } from '@turnkit/demo-web/freezer';
import { type PageFiles, pageHandler, readPage } from './page.js';

/** Options of {@link createChatHandler} and {@link startChatServer}. */
export interface ChatDemoOptions {
  /** Where runs are kept (default `.turnkit/chat-runs`). */
  dataDir?: string;
  /** Delay between streamed words of the scripted model, in ms (default 35). */
  paceMs?: number;
  /** Delay before each scripted answer, in ms (default 300). */
  thinkMs?: number;
  /** How long the assistant's questions wait for an answer, in ms (default five minutes; 0: no limit). */
  questionTimeoutMs?: number;
  /** What a run may spend across its turns (default: the web demo's, 12 model calls; `null`: none). */
  budget?: DemoAgentOptions['budget'];
  /** How long the slow `count_vials` tool takes, in ms (default 2000). */
  countMs?: number;
  /** What `/` serves (default: `public/` and the bundle in `dist/client/`). */
  page?: PageFiles;
  /** Where the handler reports what went wrong (default: `console.error`). */
  onError?: (error: unknown) => void;
}

const API = '/api';

/** `zh` when the request prefers Chinese, else `en` (the language of the freezer's forms). */
function langOf(request: Request): 'en' | 'zh' {
  return /^zh\b/i.test(request.headers.get('accept-language') ?? '') ? 'zh' : 'en';
}

/** The demo as one fetch function: `/api/*` is the TurnKit handler, everything else the page. */
export function createChatHandler(options: ChatDemoOptions = {}): (request: Request) => Promise<Response> {
  const api = createHandler({
    agent: createDemoAgent({
      paceMs: options.paceMs ?? 35,
      thinkMs: options.thinkMs ?? 300,
      questionTimeoutMs: options.questionTimeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS,
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
      ...(options.countMs !== undefined ? { countMs: options.countMs } : {}),
    }),
    store: fileStore(options.dataDir ?? '.turnkit/chat-runs'),
    basePath: API,
    protocols: [aiSdkProtocol({ path: '/chat' })],
    context: (request) => initialFreezer(langOf(request)),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const page = pageHandler(options.page ?? readPage());
  return async (request) => {
    const path = new URL(request.url).pathname;
    return path === API || path.startsWith(`${API}/`) ? api(request) : page(request);
  };
}

/** A running demo server. */
export interface ChatServer {
  url: string;
  close(): Promise<void>;
}

/** Starts the demo on `port` (0: any free port) of `hostname` (default 127.0.0.1). */
export function startChatServer(
  options: ChatDemoOptions & { port?: number; hostname?: string } = {},
): Promise<ChatServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const fetch = createChatHandler(options);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: options.port ?? 8788, hostname });
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const host = hostname === '127.0.0.1' || hostname === '0.0.0.0' ? 'localhost' : hostname;
      resolve({
        url: `http://${host}:${port}/`,
        close: () =>
          new Promise<void>((done) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
