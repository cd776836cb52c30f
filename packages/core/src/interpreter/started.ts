/**
 * The `started` marker of tools in doubt (DESIGN §21): in store mode, before a function tool's code
 * runs, its call is recorded `started` (with its tool's schema hash) in the head, a fenced write.
 * Calls of one step that reach their code together share one write: each waits for the write of
 * its batch (collected until the next macrotask), then runs only if the worker still holds the run.
 * A worker that takes the run over finds started calls without results: those are in doubt.
 */
import type { Run } from './run.js';

interface Batch {
  /** Call id → schema hash of its tool. */
  calls: Map<string, string>;
  written: Promise<boolean>;
}

const batches = new WeakMap<Run, Batch>();

const nextMacrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The run with `calls` marked started in its open step (the machine's data, changed in no other way). */
function withStarted(run: Run, calls: Map<string, string>): void {
  const context = run.state.context;
  const step = context.step?.map((call) => {
    const schemaHash = calls.get(call.toolCallId);
    return schemaHash === undefined ? call : { ...call, started: true, schemaHash };
  });
  run.state = { ...run.state, context: { ...context, step: step ?? null } };
}

/**
 * Records the call started before its code runs, and resolves to whether the code may run (the
 * worker still holds the run). Outside sessions (no fence) and in sub-agents (recorded with their
 * parent's step) it resolves at once to true and writes nothing.
 */
export function markStarted(run: Run, toolCallId: string, schemaHash: string): Promise<boolean> {
  const fence = run.fence;
  if (!fence || run.parent) return Promise.resolve(true);
  let batch = batches.get(run);
  if (!batch) {
    const calls = new Map<string, string>();
    const written = nextMacrotask().then(async () => {
      batches.delete(run);
      withStarted(run, calls);
      await fence.record(run);
      return fence.holds();
    });
    batch = { calls, written };
    batches.set(run, batch);
  }
  batch.calls.set(toolCallId, schemaHash);
  return batch.written;
}
