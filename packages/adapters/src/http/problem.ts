/**
 * Errors as RFC 9457 problem details (`application/problem+json`). One table maps every TurnKit
 * error code, and every code the HTTP layer adds, to a status; nothing else decides a status. A
 * response never carries a stack trace: unknown failures become a generic 500 and go to `onError`.
 */
import {
  type AnswerError,
  type AnswerIssue,
  type ModelError,
  TurnkitError,
  type TurnkitErrorCode,
} from '@turnkit/core';
import type { Env, Hono, Schema } from 'hono';

/** Codes the HTTP layer adds to TurnKit's own. */
export type HttpProblemCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'INTERACTION_EXPIRED'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTERNAL';

/** Every `code` a problem response can carry. */
export type ProblemCode = TurnkitErrorCode | HttpProblemCode;

/**
 * The status of each code. Snapshot codes describe a snapshot a client sent (client-held mode); in
 * store mode the client sends none, so an unreadable stored snapshot is the server's fault (500).
 */
export const PROBLEM_STATUS: Readonly<Record<ProblemCode, number>> = {
  BAD_REQUEST: 400,
  SNAPSHOT_INVALID: 400,
  // A recording replay cannot read (DESIGN §28): never sent by the handler, listed for completeness.
  RECORDING_INVALID: 400,
  UNAUTHORIZED: 401,
  SNAPSHOT_TAMPERED: 403,
  NOT_ASSIGNEE: 403,
  NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  POINT_NOT_FOUND: 404,
  CONFLICT: 409,
  NOT_WAITING: 409,
  INTERACTION_NOT_FOUND: 409,
  AMBIGUOUS_INTERACTION: 409,
  WRONG_KIND: 409,
  SNAPSHOT_VERSION: 409,
  SNAPSHOT_INCOMPATIBLE: 409,
  INTERACTION_EXPIRED: 410,
  // Used or expired; a forged link is 403 (see toProblem).
  LINK_INVALID: 410,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ANSWER_INVALID: 422,
  CONTEXT_UNSERIALIZABLE: 500,
  CONFIG_INVALID: 500,
  INTERNAL: 500,
  MODEL_ERROR: 502,
  QUEUE_UNAVAILABLE: 503,
};

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** A problem details object as sent (RFC 9457 members plus `code` and optional extensions). */
export interface ProblemBody {
  /** `urn:turnkit:problem:<code in kebab case>`: an identifier, not a link. */
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  /** With `ANSWER_INVALID` and `BAD_REQUEST`: what was wrong, by path. */
  issues?: AnswerIssue[];
  [extension: string]: unknown;
}

/** An error thrown inside the handler that becomes a problem response as is. */
export class HttpProblem extends Error {
  readonly code: ProblemCode;
  readonly extensions: Record<string, unknown>;

  constructor(code: ProblemCode, detail: string, extensions: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.code = code;
    this.extensions = extensions;
  }
}

/** The problem body for a code and a human-readable detail. */
export function problemBody(
  code: ProblemCode,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemBody {
  const status = PROBLEM_STATUS[code];
  return {
    type: `urn:turnkit:problem:${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...extensions,
  };
}

/** A `Response` carrying the problem, with `extraHeaders` (e.g. `WWW-Authenticate`). */
export function problemResponse(body: ProblemBody, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...extraHeaders },
  });
}

const GENERIC_500 = 'The server failed to handle this request. It has been reported; try again later.';

/**
 * The one detail of a `RUN_NOT_FOUND` from core. Core says whether no run has the id or the run is
 * bound to another principal; a response must not, or a caller holding someone else's run id could
 * learn that the run exists (DESIGN §13 hides it as not found).
 */
const RUN_NOT_FOUND_DETAIL =
  'No run with this id is available to this caller: check the id, or call as the caller that started the run.';

/**
 * Maps anything thrown while handling a request to a problem body. `fromStore`: the run was read
 * from the server's store, so snapshot errors are the server's fault. Returns `report: true` when
 * the error is a server fault that `onError` should see.
 */
export function toProblem(error: unknown, fromStore: boolean): { body: ProblemBody; report: boolean } {
  if (error instanceof HttpProblem) {
    return { body: problemBody(error.code, error.message, error.extensions), report: false };
  }
  if (TurnkitError.isInstance(error)) {
    const code = error.code;
    const storedSnapshot = fromStore && code.startsWith('SNAPSHOT_') && code !== 'SNAPSHOT_INCOMPATIBLE';
    const status = PROBLEM_STATUS[code];
    if (storedSnapshot || status === undefined || status === 500) {
      return { body: problemBody('INTERNAL', GENERIC_500), report: true };
    }
    if (code === 'RUN_NOT_FOUND') return { body: problemBody(code, RUN_NOT_FOUND_DETAIL), report: false };
    if (code === 'MODEL_ERROR') {
      // The provider's text stays with onError; the client reads the public message.
      const detail =
        (error as Partial<ModelError>).publicMessage ?? 'The model call failed. Try again later.';
      return { body: problemBody(code, detail), report: true };
    }
    if (code === 'LINK_INVALID' && (error as { forged?: unknown }).forged === true) {
      return {
        body: { ...problemBody(code, error.message), status: 403, title: 'Forbidden' },
        report: false,
      };
    }
    const issues = (error as Partial<AnswerError>).issues;
    return { body: problemBody(code, error.message, Array.isArray(issues) ? { issues } : {}), report: false };
  }
  return { body: problemBody('INTERNAL', GENERIC_500), report: true };
}

/** What {@link servedWithProblems} needs to know. */
export interface ProblemsOptions {
  /** Runs are read from the server's store (see {@link toProblem}). */
  fromStore: boolean;
  /** Where server faults go. */
  onError(error: unknown, request: Request): void;
  /** The detail of an unknown route's 404. Default: `No route <METHOD> <path>.` */
  notFound?: (request: Request) => string;
}

/**
 * Makes every failure of `app` a problem response: an unknown route a 404, anything thrown a
 * problem by {@link toProblem} (server faults reported to `onError`), even a throw that escapes
 * Hono itself. Returns the app's fetch function.
 */
export function servedWithProblems<E extends Env, S extends Schema, B extends string>(
  app: Hono<E, S, B>,
  options: ProblemsOptions,
): (request: Request) => Promise<Response> {
  const notFound =
    options.notFound ?? ((request) => `No route ${request.method} ${new URL(request.url).pathname}.`);
  app.notFound((c) => problemResponse(problemBody('NOT_FOUND', notFound(c.req.raw))));
  app.onError((error, c) => {
    const { body, report } = toProblem(error, options.fromStore);
    if (report) options.onError(error, c.req.raw);
    return problemResponse(body);
  });
  return async (request) => {
    try {
      return await app.fetch(request);
    } catch (error) {
      options.onError(error, request);
      return problemResponse(toProblem(error, false).body);
    }
  };
}
