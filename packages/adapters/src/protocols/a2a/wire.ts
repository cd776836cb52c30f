/** Names on the A2A wire that TurnKit's server and tool share, free of the SDK so either side can import them. */

/** The key of the `DataPart` that lists a paused task's pending interactions (`{ pending: [...] }`). */
export const PENDING_KEY = 'pending';
