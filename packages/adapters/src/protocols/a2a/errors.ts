/**
 * TurnKit's errors as A2A's, so a JSON-RPC caller gets a JSON-RPC error and never a 500: an unknown
 * task (or another principal's) is `TaskNotFoundError`, a run another request holds is
 * `UnsupportedOperationError`, a refused answer is `RequestMalformedError` with core's message, and
 * a server fault goes to `onError` and reaches the caller as a bare internal error.
 */
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { toProblem } from '../../http/index.js';

/** Whether an error is already one of A2A's (thrown by this mount on purpose): they all carry `toErrorInfo`. */
const isA2aError = (error: unknown) => error instanceof Error && 'toErrorInfo' in error;

/** The A2A error a failure of a task method becomes; server faults are reported first. */
export function a2aError(error: unknown, report: (error: unknown) => void): Error {
  if (isA2aError(error)) return error as Error;
  const { body, report: fault } = toProblem(error, true);
  if (fault) {
    report(error);
    return new Error('Internal error.');
  }
  if (body.status === 404) return new TaskNotFoundError('No such task.');
  if (body.status === 409) return new UnsupportedOperationError(body.detail);
  return new RequestMalformedError(body.detail);
}
