/** What TurnKit's A2A server and tool share, free of the SDK so the subpath loads it only when A2A is used. */

/** The key of the `DataPart` that lists a paused task's pending interactions (`{ pending: [...] }`). */
export const PENDING_KEY = 'pending';

/** A remote agent that ended a task without an answer (failed, rejected, canceled), or asked in a way TurnKit cannot answer. */
export class A2aRemoteError extends Error {
  override name = 'A2aRemoteError';
}
