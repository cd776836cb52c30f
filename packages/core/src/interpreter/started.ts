/**
 * The `started` marker of tools in doubt (DESIGN §21): in store mode, before a function tool's code
 * runs, its call is recorded `started` (with its tool's schema hash) in the head, a fenced write.
 * Calls of one step that reach their code together share one write: each waits for the write of
 * its batch (collected until the next macrotask), then runs only if the worker still holds the run.
 * A worker that takes the run over finds started calls without results: those are in doubt.
 *
 * A claim that leads straight to running calls (a human approved them, or answered their tool's
 * ask) carries their marker itself ({@link markClaimStarted}): no second head write before they run.
 */
import type { Run } from './run.js';

interface Batch {
  /** Call id → schema hash of its tool. */
  calls: Map<string, string>;
  written: Promise<void>;
}

const batches = new WeakMap<Run, Batch>();

/**
 * The next macrotask: `setImmediate` where the runtime has it (Node, Bun, Deno), which runs right
 * after pending I/O; `setTimeout(0)` elsewhere, which Node clamps to at least 1 ms (issue 49).
 */
const nextMacrotask: () => Promise<void> =
  typeof globalThis.setImmediate === 'function'
    ? () => new Promise<void>((resolve) => globalThis.setImmediate(resolve))
    : () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The run with `calls` marked started in its open step (the machine's data, changed in no other way). */
function withStarted(run: Run, calls: Map<string, string>): void {
  const context = run.state.context;
  const step = context.step?.map((call) => {
    const schemaHash = calls.get(call.toolCallId);
    return schemaHash === undefined ? call : { ...call, started: true, schemaHash };
  });
  run.state = { ...run.state, context: { ...context, step: step ?? null } };
}

/** Whether every call of the batch is marked started already, with the same schema hash, as stored. */
function alreadyMarked(run: Run, calls: Map<string, string>): boolean {
  const step = run.state.context.step ?? [];
  for (const [toolCallId, schemaHash] of calls) {
    const call = step.find((item) => item.toolCallId === toolCallId);
    if (!call?.started || call.schemaHash !== schemaHash) return false;
  }
  return true;
}

/**
 * Marks started the calls a claim leads straight to — approved calls and calls whose ask was
 * answered, of function tools the agent has — so the claim's write records them (sessions call this
 * before writing a claim). The window between that write and their code is the loop's own work.
 */
export function markClaimStarted(run: Run): void {
  const calls = new Map<string, string>();
  for (const call of run.state.context.step ?? []) {
    if (call.status !== 'approved' && !(call.status === 'resuming' && call.askResponse !== undefined))
      continue;
    const tool = run.agent.toolIndex.get(call.toolName);
    if (tool?.kind !== 'function' || tool.subagent || tool.builtin) continue;
    calls.set(call.toolCallId, tool.schemaHash);
  }
  if (calls.size > 0 && !alreadyMarked(run, calls)) withStarted(run, calls);
}

/**
 * Records the call started before its code runs; resolves once the write is done (a worker whose
 * write was refused has lost the run: the turn's signal is aborted, and the caller starts nothing).
 * Outside sessions (no fence) and in sub-agents (recorded with their parent's step) it writes nothing.
 */
export function markStarted(run: Run, toolCallId: string, schemaHash: string): Promise<void> {
  const fence = run.fence;
  if (!fence || run.parent) return Promise.resolve();
  // Marked in the stored head already, by the claim that led here (an approval, an answered ask):
  // nothing to write, and nothing to wait for.
  if (!batches.has(run) && alreadyMarked(run, new Map([[toolCallId, schemaHash]]))) {
    return Promise.resolve();
  }
  let batch = batches.get(run);
  if (!batch) {
    const calls = new Map<string, string>();
    const written = nextMacrotask().then(async () => {
      batches.delete(run);
      // Marked in the stored head already (by the claim, or by the write before an abort).
      if (alreadyMarked(run, calls)) return;
      withStarted(run, calls);
      // A refused write loses the hold, which aborts the turn's signal: the caller checks it.
      await fence.record(run);
    });
    batch = { calls, written };
    batches.set(run, batch);
  }
  batch.calls.set(toolCallId, schemaHash);
  return batch.written;
}
