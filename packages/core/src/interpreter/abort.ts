/**
 * Racing work against the turn's AbortSignal: an abort never waits on a tool or a child that
 * ignores it, and no listener outlives the race.
 */

/** What an abort race resolves to when the signal fires first. */
export const ABORTED = Symbol('aborted');

/**
 * A promise that resolves to ABORTED when the signal fires, so an abort never waits on a tool that
 * ignores it; `dispose` removes the listener, so a long-lived signal does not collect one per step.
 */
export function abortRace(signal: AbortSignal | undefined): {
  promise: Promise<typeof ABORTED> | null;
  dispose(): void;
} {
  if (!signal) return { promise: null, dispose: () => undefined };
  let listener: (() => void) | undefined;
  const promise = new Promise<typeof ABORTED>((resolve) => {
    if (signal.aborted) return resolve(ABORTED);
    listener = () => resolve(ABORTED);
    signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => listener && signal.removeEventListener('abort', listener) };
}
