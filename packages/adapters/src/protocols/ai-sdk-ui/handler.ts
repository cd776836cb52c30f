/**
 * `aiSdkHandler`: a TurnKit agent as the back end of AI SDK's `useChat` (7 or 6), a Web-standard
 * `(Request) => Promise<Response>`. Routes, relative to `basePath`:
 * - `POST /` — what `useChat` posts; answers the UI message stream v1 (see writer.ts);
 * - `GET /:id` — the chat's `UIMessage[]` (store mode), for a page reloaded mid-pause;
 * - `GET /:id/stream` — `204`: a turn is never left running for a client to re-attach to.
 *
 * It is built from the HTTP module's parts, so it behaves as `createHandler` does: CORS (when
 * asked) → bearer `token` → body read within `maxBodyBytes` → `authorize(request, { name: 'aiSdk',
 * runId: <chat id> })` (the body names the chat; a body that cannot be read is refused only after
 * access is) → the body's shape → the route → problem details.
 */
import { type AgentEvent, TurnkitError, type TurnOptions, type TurnResult } from '@turnkit/core';
import { type Context, Hono } from 'hono';
import {
  assertSigning,
  authorizeRoute,
  callerPrincipal,
  checkOptions,
  corsPolicy,
  DEFAULT_REPLAY_TTL_MS,
  type FetchHandler,
  type HandlerOptions,
  HttpProblem,
  type RouteInfo,
  readJson,
  servedWithProblems,
  tokenGate,
  unauthorizedResponse,
  withKeys,
} from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';
import { toUIMessages } from './messages.js';
import {
  type ChatRequest,
  chatIdOf,
  conversationInput,
  heldSnapshot,
  listedPending,
  parseChatRequest,
  responsesOf,
  userText,
} from './request.js';
import { type ChatRuns, clientHeldRuns, storeRuns } from './runs.js';
import { streamTurn } from './stream.js';
import { pendingPart } from './view.js';

/**
 * Options of {@link aiSdkHandler}: those of `createHandler` that apply to a chat (see
 * `HandlerOptions`). `basePath` is where `useChat`'s `api` points, e.g. `/api/chat`.
 */
export type AiSdkHandlerOptions = Pick<
  HandlerOptions,
  | 'agent'
  | 'store'
  | 'secret'
  | 'encrypt'
  | 'replay'
  | 'replayStore'
  | 'replayTtlMs'
  | 'basePath'
  | 'token'
  | 'authorize'
  | 'cors'
  | 'maxBodyBytes'
  | 'leaseMs'
  | 'context'
  | 'onEvent'
  | 'onError'
  | 'now'
>;

const defaultOnError = (error: unknown) => console.error('[turnkit/ai-sdk]', error);

/** What `createHandler`'s mount adds to a chat handler (not one of the public options). */
export interface AiSdkMountHooks {
  /** Each turn's final result (not those refused before they started), e.g. for an event hub. */
  onSettled?: (result: TurnResult<unknown>) => void;
  /**
   * Replaces `onEvent` with one made for each request (an event hub holding a turn's events until
   * its claim is written, so a request that loses the race publishes nothing).
   */
  eventsForRequest?: () => (event: AgentEvent) => void;
}

/** The HTTP module's checks say `createHandler`: here they name `aiSdkHandler`. */
const renamed = (error: unknown) =>
  TurnkitError.isInstance(error)
    ? new TurnkitError(error.code, error.message.replace(/^createHandler\b/, 'aiSdkHandler'))
    : error;

function buildRuns(options: AiSdkHandlerOptions): ChatRuns {
  const agent = withKeys(options.agent, options.secret, options.encrypt === true);
  if (options.store) return storeRuns(agent, options.store, options.leaseMs);
  assertSigning(agent);
  const replay =
    options.replay === 'reject' && options.replayStore
      ? { store: options.replayStore, ttlMs: options.replayTtlMs ?? DEFAULT_REPLAY_TTL_MS }
      : undefined;
  return clientHeldRuns(agent, replay);
}

/**
 * Creates the `useChat` back end of an agent.
 *
 * - **Store mode** (`store` given): the chat `id` names the run; every request claims it before it
 *   acts, so two tabs answering at once never both continue it.
 * - **Client-held mode** (no `store`, a `secret` of ≥ 32 characters): nothing is kept; the signed
 *   (or encrypted) snapshot rides in the assistant message's `metadata.turnkit.snapshot` and comes
 *   back with the messages.
 *
 * Throws `TurnkitError` `CONFIG_INVALID` when the options cannot work.
 *
 * @example
 * const chat = aiSdkHandler({ agent, store: fileStore('.turnkit/runs'), basePath: '/api/chat' });
 * serve({ fetch: chat, port: 8787 }); // useChat({ transport: new DefaultChatTransport({ api: '/api/chat' }) })
 */
export function aiSdkHandler(options: AiSdkHandlerOptions): FetchHandler {
  return aiSdkMount(options, {});
}

/**
 * {@link aiSdkHandler} with the hooks of `createHandler`, which `aiSdkProtocol()` mounts
 * with its own `basePath` plus the mount path, and checks `token` and CORS itself (it passes
 * neither).
 */
export function aiSdkMount(options: AiSdkHandlerOptions, hooks: AiSdkMountHooks): FetchHandler {
  let basePath: string;
  let maxBodyBytes: number;
  let runs: ChatRuns;
  try {
    ({ basePath, maxBodyBytes } = checkOptions(options));
    runs = buildRuns(options);
  } catch (error) {
    throw renamed(error);
  }
  const agent = options.agent;
  const onError = options.onError ?? defaultOnError;

  /** The options of one call: the clock, the caller, and where model failures are reported. */
  const turnOptions = (request: Request, principal: string | undefined): TurnOptions => ({
    onError: (error, run) => onError(error, request, run),
    ...(options.now ? { now: options.now() } : {}),
    principal: callerPrincipal(principal),
  });

  /** `authorize` about the chat (when its id is known); the options of its calls, or null when refused. */
  async function access(request: Request, chatId: string | undefined): Promise<TurnOptions | null> {
    const route: RouteInfo = chatId === undefined ? { name: 'aiSdk' } : { name: 'aiSdk', runId: chatId };
    const granted = await authorizeRoute(options.authorize, request, route, onError);
    return granted.allowed ? turnOptions(request, granted.principal) : null;
  }

  /** Plays `turn` and streams it; `continuing`: the assistant message the client continues. */
  function stream(
    request: Request,
    call: TurnOptions,
    continuing: ChatRequest['messages'][number] | undefined,
    turn: (options: TurnOptions) => Promise<TurnResult<unknown>>,
  ): Promise<Response> {
    const onEvent = hooks.eventsForRequest?.() ?? options.onEvent;
    return streamTurn(turn, {
      turnOptions: call,
      ...(onEvent ? { onEvent } : {}),
      report: (error) => onError(error, request),
      fromStore: !runs.clientHeld,
      ...(hooks.onSettled ? { onSettled: hooks.onSettled } : {}),
      writer: { agent, withSnapshot: runs.clientHeld, ...(continuing ? { continuing } : {}) },
    });
  }

  async function postChat(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await readJson(request, maxBodyBytes);
    } catch (error) {
      // An unreadable body is refused after access is: a caller that may not use the route learns nothing.
      if (!(await access(request, undefined))) return unauthorizedResponse();
      throw error;
    }
    const call = await access(request, chatIdOf(body));
    if (!call) return unauthorizedResponse();
    const chat = parseChatRequest(body);
    const last = chat.messages.at(-1)!;
    const snapshot = runs.clientHeld ? heldSnapshot(chat) : undefined;
    if (last.role === 'user') {
      const text = userText(chat);
      const exists = runs.clientHeld
        ? snapshot !== undefined
        : (await runs.read(chat.id, undefined, call)) !== null;
      if (exists) return stream(request, call, undefined, (o) => runs.send(chat.id, text, snapshot, o));
      const context = options.context ? await options.context(request) : undefined;
      const input = conversationInput(chat);
      return stream(request, call, undefined, (o) => runs.start(chat.id, input, context, o));
    }
    if (last.role !== 'assistant') {
      throw new HttpProblem(
        'BAD_REQUEST',
        "The last message is a system message: end with the user's message, or with the assistant message that holds the answers.",
      );
    }
    const current = await runs.read(chat.id, snapshot, call);
    if (!runs.clientHeld && current === null) {
      throw new HttpProblem('RUN_NOT_FOUND', `No run for chat ${chat.id}: start it with a user message.`);
    }
    // What the message lists (it may repeat an answer already applied), then what the run says
    // waits now, which wins for a part named by both.
    const listed = [
      ...listedPending(last),
      ...(current?.pending.map((interaction) => pendingPart(interaction)) ?? []),
    ];
    const responses = responsesOf(chat, listed);
    if (responses.length === 0) {
      throw new HttpProblem(
        'BAD_REQUEST',
        "The last message is the assistant's and answers nothing the run waits for. Answer a pending question or form (addToolOutput) or approval (addToolApprovalResponse), or send a user message.",
      );
    }
    return stream(request, call, last, (o) => runs.respond(chat.id, responses, snapshot, o));
  }

  async function getChat(c: Context): Promise<Response> {
    const chatId: string = c.req.param('id') ?? '';
    if (!isSafeRunId(chatId)) {
      throw new HttpProblem(
        'RUN_NOT_FOUND',
        `No chat with id ${JSON.stringify(String(chatId).slice(0, 80))}.`,
      );
    }
    const call = await access(c.req.raw, chatId);
    if (!call) return unauthorizedResponse();
    if (runs.clientHeld) {
      throw new HttpProblem(
        'RUN_NOT_FOUND',
        'This handler keeps no chats (client-held mode): the conversation is the messages your client holds.',
      );
    }
    const result = await runs.read(chatId, undefined, call);
    if (!result) throw new HttpProblem('RUN_NOT_FOUND', `No run for chat ${chatId}.`);
    return c.json(toUIMessages(result, { agent }), 200, { 'cache-control': 'no-store' });
  }

  // Routed by the path as sent: a percent-encoded letter in a fixed segment matches nothing.
  const root = new Hono({ getPath: (request) => new URL(request.url).pathname });
  const app = basePath ? root.basePath(basePath) : root;
  if (options.cors) {
    app.use(
      '*',
      corsPolicy(options.cors, { methods: ['GET', 'POST'], headers: ['authorization', 'content-type'] }),
    );
  }
  app.use('*', tokenGate(options.token));
  app.post('/', (c) => postChat(c.req.raw));
  app.get('/:id', getChat);
  app.get('/:id/stream', () => new Response(null, { status: 204 }));
  return servedWithProblems(root, { fromStore: !runs.clientHeld, onError });
}
