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
import { type AgentEvent, parseSnapshot, type SnapshotStore } from '@turnkit/core';
import { createDemoAgent, DEMO_USER, type DemoAgentOptions } from './agent.js';
import { initialFreezer } from './freezer.js';
import { NoticeLog } from './notices.js';
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
 * One decision a human (or the clock) took on the run, as the page shows it in the transcript: an
 * approval approved or rejected (with the rationale and the edited input), a question answered,
 * a form's value. Who decided is not known: the demo has no login.
 */
export interface Decision {
  /** The tool call it was about: the page shows the decision next to that call's result. */
  toolCallId: string;
  /**
   * The tool it was about, when this server saw it asked: a sub-agent's call is not in the run's
   * transcript, so its name is known only from the `interaction_requested` event.
   */
  toolName?: string;
  /** Agent names from the top agent down to the one that asked, when known (as `toolName`). */
  agentPath?: string[];
  kind: 'question' | 'approval' | 'input' | 'review';
  /** `approved`, `rejected`, `answered`, `cancelled`, `timed_out`, `defaulted` or `superseded`. */
  resolution: string;
  /** When it was decided (ISO). */
  at: string;
  rationale?: string;
  /** Approvals decided with an edited input: the input the tool ran with. */
  editedInput?: unknown;
  /** Forms: the value given. */
  value?: unknown;
}

/** What the server saw asked, by interaction id (the newest 10 000): the tool and who asked. */
export class AskedLog {
  private readonly asked = new Map<string, { toolName: string; agentPath: string[] }>();

  /** The handler's `onEvent`: keeps each `interaction_requested`. */
  readonly onEvent = (event: AgentEvent): void => {
    if (event.type !== 'interaction_requested') return;
    const { id, toolName, agentPath } = event.interaction;
    this.asked.set(id, { toolName, agentPath });
    if (this.asked.size > 10_000) this.asked.delete(this.asked.keys().next().value as string);
  };

  get(id: string): { toolName: string; agentPath: string[] } | undefined {
    return this.asked.get(id);
  }
}

/** The decisions the stored run recorded (core's resolved records), oldest first. */
export async function decisionsOf(
  store: SnapshotStore,
  runId: string,
  asked?: AskedLog,
): Promise<Decision[]> {
  const stored = await store.get(runId);
  if (!stored) return [];
  const json = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as unknown));
  return parseSnapshot(stored.snapshot).state.context.resolved.map((record) => ({
    toolCallId: record.toolCallId,
    ...asked?.get(record.id),
    kind: record.kind as Decision['kind'],
    resolution: record.resolution,
    at: record.at,
    ...(record.rationale !== undefined ? { rationale: record.rationale } : {}),
    ...(record.editedInput !== undefined ? { editedInput: json(record.editedInput) } : {}),
    ...(record.value !== undefined ? { value: json(record.value) } : {}),
  }));
}

/** `/api/runs` and `/api/runs/:id[/…]`, not the event stream: the routes that answer with a run view. */
const VIEW_ROUTE = /^\/api\/runs(\/[^/]+(\/(answer|approve|reject|cancel|input|messages))?)?$/;

/**
 * A run view with the run's `decisions` added, so the transcript keeps what was decided (the
 * handler's view lists what is pending, not what was resolved). Anything else passes unchanged.
 */
async function withDecisions(
  response: Response,
  path: string,
  store: SnapshotStore,
  asked: AskedLog,
): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (!VIEW_ROUTE.test(path) || response.status !== 200 || !type.includes('application/json'))
    return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const view = JSON.parse(text) as { runId?: unknown };
  const body =
    typeof view.runId === 'string'
      ? JSON.stringify({ ...view, decisions: await decisionsOf(store, view.runId, asked) })
      : text;
  return new Response(body, { status: response.status, headers });
}

/**
 * The demo as one fetch function: `/api/*` is the TurnKit handler, everything else the page. With
 * `sweepToken`, `POST /api/sweep` resolves what has timed out.
 */
export function createDemoHandler(
  options: DemoOptions & { sweepToken?: string } = {},
): (request: Request) => Promise<Response> {
  const store = fileStore(options.dataDir ?? '.turnkit/web-runs');
  const asked = new AskedLog();
  const notices = new NoticeLog();
  const api = createHandler({
    agent: createDemoAgent(options),
    store,
    basePath: API,
    context: (request) => initialFreezer(langOf(request)),
    ...(options.sweepToken ? { sweepToken: options.sweepToken } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    onEvent: asked.onEvent,
    // No login: every visitor is the same principal, so an escalation that keeps them lets them answer.
    authorize: () => ({ principal: DEMO_USER }),
    // Reminders and escalations (DESIGN §30), which the sweeper fires, shown in the inbox.
    onInteraction: notices.onInteraction,
  });
  const page = staticFiles();
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path !== API && !path.startsWith(`${API}/`)) return page(request);
    if (path === `${API}/interactions` && request.method === 'GET')
      return notices.withNotices(await api(request));
    return withDecisions(await api(request), path, store, asked);
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
