/**
 * Access control. The bearer `token` is checked before anything else, so a request without it gets
 * the same bare 401 whatever it asked for and learns nothing (not even whether a run exists). Your
 * `authorize` is then asked about the named route the router matched (DESIGN §13): it sees exactly
 * the route that will run, never a differently decoded path, and may name the caller (a principal)
 * so that runs are bound to whoever created them.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { safeEqual } from './crypto.js';
import { problemBody, problemResponse } from './problem.js';

/** The handler's Hono environment: the principal `authorize` named, if any. */
export type HandlerEnv = { Variables: { principal: string | undefined } };

/**
 * Every route name `authorize` can be asked about: a closed list, so an app can switch over it.
 * `aiSdk`, `agUi`, `mcp` and `a2a` are the protocol mounts of `createHandler({ protocols })`.
 */
export const ROUTE_NAMES = [
  'start',
  'get',
  'answer',
  'approve',
  'reject',
  'cancel',
  'input',
  'message',
  'retry',
  'stop',
  'fork',
  'extend',
  'events',
  'sweep',
  'aiSdk',
  'agUi',
  'mcp',
  'a2a',
  'inbox',
  'answer-link',
] as const;

/** The name of a route (see {@link ROUTE_NAMES}). */
export type RouteName = (typeof ROUTE_NAMES)[number];

/** The route a request was matched to: its name and, on routes about one run, the run id. */
export interface RouteInfo {
  name: RouteName;
  runId?: string;
}

/**
 * What `authorize` answers: `true` lets the request in, `false` refuses it (401), and
 * `{ principal }` lets it in as that caller. A principal binds the runs it starts: every later call
 * about such a run must come from the same principal, else the run is not found (404).
 */
export type AuthorizeResult = boolean | { principal: string };

/**
 * Decides whether a request may use a route. A one-argument function `(request) => boolean` is
 * still accepted: it simply ignores the route.
 */
export type Authorize = (request: Request, route: RouteInfo) => AuthorizeResult | Promise<AuthorizeResult>;

/** The outcome of {@link authorizeRoute}. */
export type Access = { allowed: false } | { allowed: true; principal?: string };

/** The one 401 every refused request gets, whatever it asked for. */
export function unauthorizedResponse(): Response {
  return problemResponse(problemBody('UNAUTHORIZED', 'Authentication is required.'), {
    'www-authenticate': 'Bearer',
  });
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Whether the request carries the handler's bearer `token` (always true without one). */
export function hasToken(request: Request, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = bearerToken(request);
  // Compare even when the header is missing, so both paths take the same time.
  const matches = safeEqual(given ?? '', token);
  return given !== null && matches;
}

/** Middleware giving every request without the bearer `token` the one 401 (none without a token). */
export function tokenGate(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (!hasToken(c.req.raw, token)) return unauthorizedResponse();
    await next();
  };
}

/** The CORS middleware of a handler's `cors` option, for its methods and request headers. */
export function corsPolicy(
  options: { origins: string[]; maxAgeSeconds?: number },
  allow: { methods: string[]; headers: string[]; expose?: string[] },
): MiddlewareHandler {
  return cors({
    origin: options.origins.includes('*') ? '*' : options.origins,
    allowMethods: allow.methods,
    allowHeaders: allow.headers,
    ...(allow.expose ? { exposeHeaders: allow.expose } : {}),
    maxAge: options.maxAgeSeconds ?? 600,
  });
}

/**
 * Asks `authorize` about one route. Without `authorize` every request is allowed. A callback that
 * throws, or answers anything but `true`, `false` or `{ principal: <non-empty string> }`, denies;
 * the throw or the malformed answer is reported to `onError`.
 */
export async function authorizeRoute(
  authorize: Authorize | undefined,
  request: Request,
  route: RouteInfo,
  onError: (error: unknown, request: Request) => void,
): Promise<Access> {
  if (!authorize) return { allowed: true };
  let answer: unknown;
  try {
    answer = await authorize(request, route);
  } catch (error) {
    onError(error, request);
    return { allowed: false };
  }
  if (answer === true) return { allowed: true };
  if (answer === false) return { allowed: false };
  const principal = (answer as { principal?: unknown } | null)?.principal;
  // A NUL would let `authorize` name the guest (see GUEST_PRINCIPAL).
  if (typeof principal === 'string' && principal !== '' && !principal.includes('\0'))
    return { allowed: true, principal };
  onError(
    new TypeError(
      `authorize must return true, false or { principal: <non-empty string> }, got ${describe(answer)}: the request was refused.`,
    ),
    request,
  );
  return { allowed: false };
}

/**
 * Who a caller admitted without a principal is to core, on runs that exist: a name no run is bound
 * to, so a run bound to a principal is not found (404) for a guest as for any other caller, while
 * runs started without one stay open to all. Never recorded: {@link forNewRun} drops it.
 */
export const GUEST_PRINCIPAL = '\0guest';

/** The principal core checks a caller's calls with: theirs, or {@link GUEST_PRINCIPAL}. */
export function callerPrincipal(principal: string | undefined): string {
  return principal ?? GUEST_PRINCIPAL;
}

/** The options of a call that starts a run: a guest's starts no bound run. */
export function forNewRun<T extends { principal?: string }>(options: T): T {
  if (options.principal !== GUEST_PRINCIPAL) return options;
  const { principal: _guest, ...rest } = options;
  return rest as T;
}

function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return 'an object';
  }
}
