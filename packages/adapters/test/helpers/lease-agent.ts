/**
 * What the lease tests share (DESIGN §12, issue 11): an agent whose one tool needs approval and
 * then takes longer than a lease, counters of what it executed, and the vocabulary for what each
 * request got back. The cross-process worker (fixtures/lease-worker.ts) plays the same agent, so a
 * run started in the test can be approved in a child process and finished in the test again.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Agent,
  ConflictError,
  defineAgent,
  defineTool,
  type SessionResult,
  type Sessions,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';

/** The id of the tool call the model makes: executions are counted by `<runId>:thaw`. */
export const THAW_CALL_ID = 'thaw';

/** Options of {@link slowApprovalAgent}. */
export interface SlowApprovalOptions {
  /** How long each execution of the approved tool takes. */
  toolMs: number;
  /** Called with `ctx.idempotencyKey` as each execution starts (so a killed one counts too). */
  onExecute?: (idempotencyKey: string) => void;
  /** Called with the idempotency key the model read back, on each model call after the tool. */
  onFinish?: (idempotencyKey: string) => void;
  /** Whether the tool stops when its `ctx.signal` aborts (a worker handing its turn back). */
  abortable?: boolean;
  /** How long the model call after the tool takes (after `onFinish`); default 0. */
  modelMs?: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An LN2 agent: the model asks to record a thaw (a side effect, approval first), the tool sleeps
 * `toolMs` and returns its idempotency key, and the model reports it. The model is stateless, so any
 * process playing the same agent goes on where another stopped.
 */
export function slowApprovalAgent(options: SlowApprovalOptions): Agent {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record that vials were taken out of the freezer (must happen once per run).',
    input: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
    needsApproval: (input) => `Removes ${input.vials} vial(s) of ${input.cellLine} from the inventory`,
    execute: async (_input, ctx) => {
      options.onExecute?.(ctx.idempotencyKey);
      await (options.abortable
        ? delay(options.toolMs, undefined, { signal: ctx.signal })
        : sleep(options.toolMs));
      return { recorded: ctx.idempotencyKey };
    },
  });
  const model = scriptedModel([
    {
      toolCalls: [{ id: THAW_CALL_ID, name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }],
    },
    async (request) => {
      const result = request.messages.findLast((message) => message.role === 'tool')?.content ?? '{}';
      const { recorded } = JSON.parse(result) as { recorded?: string };
      options.onFinish?.(recorded ?? '?');
      if (options.modelMs) await sleep(options.modelMs);
      return `Recorded ${recorded}.`;
    },
  ]);
  return defineAgent({
    name: 'freezer',
    instructions: 'You record thaws.',
    model,
    tools: [recordThaw],
  });
}

/** Adds `by` (one) to `key` in a tally. */
export function bump(tally: Record<string, number>, key: string, by = 1): void {
  tally[key] = (tally[key] ?? 0) + by;
}

/**
 * What one request got, as plain text (children report it as JSON): `continued:<status>` for the
 * request that played the turn, `repeat:<status>` for an idempotent read, `conflict`, or `error: …`.
 */
export type Outcome = string;

/** Classifies a settled `sessions.*` call; a request that played a turn is the one with events. */
export function outcomeOf(settled: PromiseSettledResult<SessionResult>): Outcome {
  if (settled.status === 'rejected') {
    return settled.reason instanceof ConflictError ? 'conflict' : `error: ${String(settled.reason)}`;
  }
  const { status, events } = settled.value;
  return `${events.length > 0 ? 'continued' : 'repeat'}:${status}`;
}

/**
 * What must hold for the requests of one run: exactly one played the turn and got it completed;
 * every other one got a conflict or an idempotent read (running or completed). Returns what broke.
 */
export function unexpectedOutcomes(runId: string, outcomes: Outcome[]): string[] {
  const continued = outcomes.filter((outcome) => outcome.startsWith('continued:'));
  const problems: string[] = [];
  if (continued.length !== 1 || continued[0] !== 'continued:completed') {
    problems.push(`${runId}: the requests that played the turn got ${JSON.stringify(continued)}`);
  }
  const allowed = new Set(['continued:completed', 'conflict', 'repeat:running', 'repeat:completed']);
  for (const outcome of outcomes.filter((item) => !allowed.has(item))) {
    problems.push(`${runId}: a request got ${outcome}`);
  }
  return problems;
}

/**
 * Approves `runId` once, then `duplicates` more times, one every `everyMs`, from the workers in
 * turn (the first request from `workers[0]`); resolves with what each request got, in order.
 */
export async function approveWithDuplicates(
  workers: Sessions[],
  runId: string,
  { duplicates, everyMs }: { duplicates: number; everyMs: number },
): Promise<Outcome[]> {
  const requests = Array.from({ length: duplicates + 1 }, async (_, index) => {
    await sleep(index * everyMs);
    return workers[index % workers.length]!.approve(runId);
  });
  return (await Promise.allSettled(requests)).map(outcomeOf);
}

/** Counts outcomes by kind, for the log line of a test. */
export function countOutcomes(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) bump(counts, outcome.startsWith('error') ? 'error' : outcome);
  return counts;
}
