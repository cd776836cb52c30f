/**
 * The in-process pub/sub behind `GET /runs/:id/events`: the turns this handler plays publish their
 * events here, keyed by run id, and open event streams listen. It is per process: a turn played by
 * another instance (another server, another serverless invocation) is not seen here.
 */

/** One server-sent event: its `event` name, optional `id`, and JSON `data`. */
export interface HubMessage {
  event: string;
  id?: string;
  data: unknown;
}

/** Listeners keyed by run id. */
export interface EventHub {
  /** Adds a listener for one run; returns the function that removes it. */
  subscribe(runId: string, listener: (message: HubMessage) => void): () => void;
  /** Sends a message to the run's listeners; a throwing listener never reaches the publisher. */
  publish(runId: string, message: HubMessage): void;
  /** How many listeners the run has (for tests and metrics). */
  listeners(runId: string): number;
}

/** Creates an empty {@link EventHub}. */
export function createEventHub(): EventHub {
  const byRun = new Map<string, Set<(message: HubMessage) => void>>();
  return {
    subscribe(runId, listener) {
      let set = byRun.get(runId);
      if (!set) {
        set = new Set();
        byRun.set(runId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && byRun.get(runId) === set) byRun.delete(runId);
      };
    },
    publish(runId, message) {
      for (const listener of byRun.get(runId) ?? []) {
        try {
          listener(message);
        } catch {
          // A broken stream must not break the turn that publishes.
        }
      }
    },
    listeners: (runId) => byRun.get(runId)?.size ?? 0,
  };
}
