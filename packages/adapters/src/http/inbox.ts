/**
 * `GET /interactions` (route `inbox`, DESIGN §20): the pending asks of every run the caller may see,
 * oldest first, a page at a time, read from the store's index through core's `sessions.inbox`. A
 * caller `authorize` named sees the asks of runs bound to it and those naming it among the
 * assignees; a caller without a principal sees only runs bound to no principal. The query takes
 * `assignee`, `kind`, `expiringBefore`, `limit` and `cursor`, each at most once; anything else is a
 * 400 that says what was wrong. Store mode only.
 */
import { type InboxFilter, type InboxPage, type InteractionKind, TurnkitError } from '@turnkit/core';
import type { Hono, MiddlewareHandler } from 'hono';
import type { HandlerEnv } from './auth.js';
import { HttpProblem } from './problem.js';

/** Most items one page may ask for (`?limit=`). */
const MAX_LIMIT = 500;

/**
 * Whether a cursor, once decoded, holds a NUL. No page returns one (a run id, an interaction id and
 * a time never hold it), and PostgreSQL refuses it in a text parameter, so a forged one would be a
 * server fault there and an arbitrary place elsewhere. Cursors that are not base64url at all are
 * left to core, which refuses them.
 */
function holdsNul(cursor: string): boolean {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor) || cursor.length % 4 === 1) return false;
  const base64 = cursor.replaceAll('-', '+').replaceAll('_', '/');
  return atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)).includes('\0');
}

/** The parameters `GET /interactions` takes. */
const PARAMETERS = ['assignee', 'kind', 'expiringBefore', 'limit', 'cursor'];

/** Every kind of interaction (a record, so a kind core adds cannot be left out of the check). */
const KINDS: Record<InteractionKind, true> = {
  approval: true,
  budget: true,
  in_doubt: true,
  input: true,
  question: true,
  review: true,
};

/**
 * Refuses a query the inbox does not take: an unknown parameter (a misspelt `cursor` would page
 * the first page forever), one given twice, or a NUL (no stored text holds one, and PostgreSQL
 * refuses it in a parameter: a server fault there).
 */
function checkQuery(query: URLSearchParams): void {
  const seen = new Set<string>();
  for (const [name, value] of query) {
    if (!PARAMETERS.includes(name)) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `GET /interactions takes no parameter ${JSON.stringify(name.slice(0, 40))}: it takes ${PARAMETERS.join(', ')}.`,
      );
    }
    if (seen.has(name)) throw new HttpProblem('BAD_REQUEST', `${name} may be given once.`);
    seen.add(name);
    if (value.includes('\0')) throw new HttpProblem('BAD_REQUEST', `${name} must not hold a NUL character.`);
  }
}

/** The query of `GET /interactions` as an inbox filter, or a `BAD_REQUEST` saying what is wrong. */
function filterOf(url: string): InboxFilter {
  const query = new URL(url).searchParams;
  checkQuery(query);
  const filter: InboxFilter = {};
  for (const name of ['assignee', 'kind', 'cursor'] as const) {
    const value = query.get(name);
    if (value === null) continue;
    if (value === '') throw new HttpProblem('BAD_REQUEST', `${name} must not be empty.`);
    if (name === 'kind' && !Object.hasOwn(KINDS, value)) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `kind must be one of ${Object.keys(KINDS).join(', ')}, got ${JSON.stringify(value.slice(0, 40))}.`,
      );
    }
    if (name === 'cursor' && holdsNul(value)) {
      throw new HttpProblem(
        'BAD_REQUEST',
        'This `cursor` is not one an inbox page returned: pass the `cursor` of the previous page (none for the first).',
      );
    }
    filter[name] = value;
  }
  const limit = query.get('limit');
  if (limit !== null) {
    const count = Number(limit);
    if (!/^\d+$/.test(limit) || count < 1 || count > MAX_LIMIT) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `limit must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limit.slice(0, 40))}.`,
      );
    }
    filter.limit = count;
  }
  const before = query.get('expiringBefore');
  if (before !== null) {
    if (Number.isNaN(Date.parse(before))) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `expiringBefore must be an ISO date such as 2030-01-01T00:00:00Z, got ${JSON.stringify(before.slice(0, 40))}.`,
      );
    }
    filter.expiringBefore = before;
  }
  return filter;
}

/** Registers `GET /interactions` on `app`, behind `guard` (the `inbox` route's `authorize`). */
export function registerInbox(
  app: Hono<HandlerEnv>,
  guard: MiddlewareHandler<HandlerEnv>,
  inbox: (filter: InboxFilter) => Promise<InboxPage>,
): void {
  app.get('/interactions', guard, async (c) => {
    const principal = c.get('principal');
    const filter: InboxFilter = {
      ...filterOf(c.req.url),
      ...(principal === undefined ? { principal: null } : { visibleTo: principal }),
    };
    try {
      return c.json(await inbox(filter));
    } catch (error) {
      // The store has an index (checked when the backend was built): what remains is the query's fault.
      if (TurnkitError.isInstance(error) && error.code === 'CONFIG_INVALID') {
        throw new HttpProblem('BAD_REQUEST', error.message);
      }
      throw error;
    }
  });
}
