/**
 * The AG-UI route, behind whatever checked the bearer token and CORS (`agUiHandler`, or
 * the `agUiProtocol()` mount of `createHandler`): body (bounded, JSON) → `authorize` about route
 * `agUi` with the thread id as run id → `RunAgentInput` validation → the thread → the action → its
 * event stream. Anything refused before the stream starts is an RFC 9457 problem (4xx; a server
 * fault is the generic 500 and goes to `onError`), never a stack trace.
 */
import type { TurnOptions } from '@turnkit/core';
import {
  authorizeRoute,
  callerPrincipal,
  problemResponse,
  type RouteInfo,
  readJson,
  toProblem,
  unauthorizedResponse,
} from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';
import { parseRunAgentInput } from './input.js';
import { conversation } from './messages.js';
import type { AgUiConfig } from './options.js';
import { plan } from './plan.js';
import { playAction, runOutput } from './play.js';
import { threadOpener } from './thread.js';
import { createTranslator } from './translate.js';

/** The thread id of a body that may not be a valid input yet, when it is usable as a run id. */
function threadIdOf(body: unknown): string | undefined {
  const threadId = (body as { threadId?: unknown } | null)?.threadId;
  return isSafeRunId(threadId) ? threadId : undefined;
}

/**
 * The route of one AG-UI endpoint: `(request) => Promise<Response>` for a POST whose token (and CORS)
 * the caller already checked.
 */
export function agUiRoute(config: AgUiConfig): (request: Request) => Promise<Response> {
  const open = threadOpener(config);

  const allowed = async (request: Request, threadId: string | undefined) => {
    const route: RouteInfo = threadId === undefined ? { name: 'agUi' } : { name: 'agUi', runId: threadId };
    return authorizeRoute(config.authorize, request, route, config.onError);
  };

  function turnOptions(request: Request, principal: string | undefined): TurnOptions {
    // A failed model call's full error goes to onError only; events and snapshots carry its public message.
    const options: TurnOptions = { onError: (error, run) => config.onError(error, request, run) };
    if (config.now) options.now = config.now();
    options.principal = callerPrincipal(principal);
    return options;
  }

  async function handle(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await readJson(request, config.maxBodyBytes);
    } catch (error) {
      // An unreadable body is refused after access is: a caller that may not use the route learns nothing.
      if (!(await allowed(request, undefined)).allowed) return unauthorizedResponse();
      throw error;
    }
    const access = await allowed(request, threadIdOf(body));
    if (!access.allowed) return unauthorizedResponse();
    const input = parseRunAgentInput(body);
    const options = turnOptions(request, access.principal);
    const output = runOutput();
    const translator = createTranslator({
      threadId: input.threadId,
      runId: input.runId,
      client: conversation(input.messages),
      write: output.write,
    });
    const thread = await open(input.threadId, input.state, options, translator.beforeModel);
    const action = await plan(input, thread, {
      agent: config.agent,
      clientHeld: !config.store,
      context: () => config.context?.(request),
    });
    return playAction(request, { input, thread, action, options, translator, output }, config);
  }

  return async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      const { body, report } = toProblem(error, Boolean(config.store));
      if (report) config.onError(error, request);
      return problemResponse(body);
    }
  };
}
