/**
 * The application context is checked when each tool ends (DESIGN §12). A tool that leaves something
 * in `ctx.context` that a snapshot cannot keep unchanged gets a `tool_error` result naming the path,
 * and its change is dropped: the context goes back to the last state known to be good, in place,
 * so references other tools hold stay valid. Without this, the snapshot written at the end of the
 * turn would fail, and a session would stay `running` and re-run the tool on every retry.
 */
import type { SuperJSONResult } from 'superjson';
import { contextProblem, deserializeContext, serializeChecked } from '../snapshot/index.js';
import { type Run, rootOf } from './run.js';

/** One per top-level run; sub-agents share their parent's, as they share its context. */
export interface ContextGuard {
  /** Call before a tool's code runs: makes sure there is a good state to go back to. */
  enter(): void;
  /** Call when a tool's code has ended: the problem with the context (it has been restored), or null. */
  leave(): string | null;
}

/** Puts `restored` back into the run's context object, keeping its identity where its type allows. */
function restoreInPlace(run: Run, restored: unknown): void {
  const current = run.context;
  if (current instanceof Map && restored instanceof Map) {
    current.clear();
    for (const [key, value] of restored) current.set(key, value);
  } else if (current instanceof Set && restored instanceof Set) {
    current.clear();
    for (const value of restored) current.add(value);
  } else if (Array.isArray(current) && Array.isArray(restored)) {
    current.splice(0, current.length, ...restored);
  } else if (
    typeof current === 'object' &&
    current !== null &&
    Object.getPrototypeOf(current) === Object.prototype &&
    typeof restored === 'object' &&
    restored !== null
  ) {
    for (const key of Reflect.ownKeys(current)) delete (current as Record<PropertyKey, unknown>)[key];
    Object.assign(current, restored);
  } else {
    run.context = restored;
  }
}

/** The guard of a run's context, made on first use; a sub-agent uses the top run's. */
export function contextGuardOf(run: Run): ContextGuard {
  let top = run;
  while (top.parent) top = top.parent;
  top.contextGuard ??= contextGuard(top);
  return top.contextGuard;
}

function contextGuard(run: Run): ContextGuard {
  const serializer = rootOf(run).serializer;
  let checkpoint: SuperJSONResult | null | undefined;
  let running = 0;
  return {
    enter() {
      // The context is good here: it was checked when it came in and after every tool since.
      if (checkpoint === undefined) checkpoint = serializeChecked(run.context, serializer);
      running++;
    },
    leave() {
      running--;
      const problem = contextProblem(run.context, serializer);
      if (problem) {
        restoreInPlace(run, deserializeContext(checkpoint ?? null, serializer));
        return problem;
      }
      // Tools still running may fail later: they need this tool's change kept in the state they go back to.
      checkpoint = running > 0 ? serializeChecked(run.context, serializer) : undefined;
      return null;
    },
  };
}

/** How a tool's code ended, and what it left in the context (null when the context is good). */
export type Settled =
  | { ok: true; value: unknown; problem: string | null }
  | { ok: false; error: unknown; problem: string | null };

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * Runs a tool's own code (`execute`, `needsApproval`, `resume`) and checks the context the moment
 * it ends: synchronously for code that returns a value, in the continuation of its promise
 * otherwise. Checking there, rather than when the step collects results, puts a problem on the tool
 * that made it even when tools of one step run concurrently.
 */
export function guarded(run: Run, body: () => unknown): Promise<Settled> {
  const guard = contextGuardOf(run);
  guard.enter();
  return Promise.resolve().then(() => {
    let out: unknown;
    try {
      out = body();
    } catch (error) {
      return { ok: false, error, problem: guard.leave() };
    }
    if (!isThenable(out)) return { ok: true, value: out, problem: guard.leave() };
    return Promise.resolve(out).then(
      (value): Settled => ({ ok: true, value, problem: guard.leave() }),
      (error: unknown): Settled => ({ ok: false, error, problem: guard.leave() }),
    );
  });
}

/** The `tool_error` result of a tool that left the context in a state a snapshot cannot keep. */
export function contextErrorMessage(toolName: string, problem: string): string {
  return `${toolName} left the run context in a state a snapshot cannot keep: ${problem}. Its change to the context was dropped; keep only data in ctx.context.`;
}
