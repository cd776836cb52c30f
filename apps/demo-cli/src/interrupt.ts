/**
 * Ctrl-C routing. Only the innermost handler runs: during a turn it aborts the turn (which then
 * saves itself as `aborted`); at a line prompt it reports where the saved run is and exits.
 * Arrow-key prompts read Ctrl-C as a key and never get here.
 */
const handlers: (() => void)[] = [];

function dispatch(): void {
  handlers.at(-1)?.();
}

/** Makes `handler` the one Ctrl-C calls until the returned function is called. */
export function onInterrupt(handler: () => void): () => void {
  if (handlers.length === 0) process.on('SIGINT', dispatch);
  handlers.push(handler);
  return () => {
    const index = handlers.lastIndexOf(handler);
    if (index !== -1) handlers.splice(index, 1);
    if (handlers.length === 0) process.off('SIGINT', dispatch);
  };
}
