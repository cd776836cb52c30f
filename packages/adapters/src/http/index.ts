/**
 * @turnkit/adapters/http — a TurnKit agent as a Web-standard HTTP handler (`Request → Response`):
 * runs, answers, approvals and live Server-Sent Events, with errors as RFC 9457 problem details.
 */

export type { Authorize } from './auth.js';
export { DEFAULT_MAX_BODY_BYTES } from './body.js';
export { MIN_SECRET_LENGTH } from './client-held.js';
export type { FetchHandler } from './handler.js';
export { createHandler } from './handler.js';
export type { HandlerOptions } from './options.js';
export type { HttpProblemCode, ProblemBody, ProblemCode } from './problem.js';
export { PROBLEM_STATUS } from './problem.js';
export type { RunView } from './view.js';
