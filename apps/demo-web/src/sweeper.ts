/**
 * Timeouts that fire, for the demo: a timer that calls the handler's own `POST /api/sweep` (with
 * its `sweepToken`) every `intervalMs`, as the README's cron recipe does once a minute. Each sweep
 * resolves the questions whose time is up (core's `sessions.sweep`), and their runs go on; pages
 * following a run see its events. One sweep at a time: a slow one is not stacked on.
 */

/** A running sweeper. */
export interface Sweeper {
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** Calls `POST <basePath>/sweep` on `handler` every `intervalMs`, authenticated by `token`. */
export function startSweeper(
  handler: (request: Request) => Promise<Response>,
  options: { token: string; basePath: string; intervalMs: number },
): Sweeper {
  let running: Promise<void> | null = null;
  const sweep = async () => {
    const response = await handler(
      new Request(`http://localhost${options.basePath}/sweep`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}` },
      }),
    );
    // The handler reported any fault to its onError already; the next tick tries again.
    await response.body?.cancel();
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => {
      running = null;
    });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
