/**
 * The load test of issue 11 (DESIGN §12), in one process: turns that last three leases, with the
 * same approval sent again every half lease by several workers (sessions over their own store
 * client), on every store. A worker renews its claim while its turn plays, so no duplicate may take
 * the run over: every tool executes once per idempotency key, the request that played the turn gets
 * it completed, every duplicate gets a ConflictError or an idempotent read, and every run ends
 * stored as completed. Without renewal each duplicate sent after the first lease lapsed would
 * recover the run and execute the tool again.
 */
import { createSessions } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import {
  approveWithDuplicates,
  bump,
  countOutcomes,
  slowApprovalAgent,
  THAW_CALL_ID,
  unexpectedOutcomes,
} from './helpers/lease-agent.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';

/**
 * Long enough that the renewals of 12 turns in one process keep up while the whole suite shares two
 * cores (at 300 ms a starved event loop let a lease lapse now and then, and a duplicate then took the
 * run over, as §12 allows); short enough that each turn lasts three leases.
 */
const LEASE_MS = 500;
/** Each approved turn executes a tool this long: three leases. */
const TOOL_MS = 3 * LEASE_MS;
const DUPLICATE_EVERY_MS = LEASE_MS / 2;
/** Duplicates per run: they keep coming until past the end of the turn. */
const DUPLICATES = TOOL_MS / DUPLICATE_EVERY_MS + 2;
const RUNS = 12;
const WORKERS = 3;

const servers = findServers();

describe(`load: turns of 3 leases (${LEASE_MS} ms) with a duplicate approval every half lease`, () => {
  for (const kind of ['memory', 'file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: ${RUNS} runs × ${DUPLICATES + 1} approvals from ${WORKERS} workers: 0 double executions`,
      async () => {
        const executions: Record<string, number> = {};
        const finishes: Record<string, number> = {};
        const agent = slowApprovalAgent({
          toolMs: TOOL_MS,
          onExecute: (key) => bump(executions, key),
          onFinish: (key) => bump(finishes, key),
        });
        const backend = await sharedStores(kind, 'load-leases', WORKERS, servers.urls[kind]);
        try {
          const workers = backend.stores.map((store) => createSessions({ agent, store, leaseMs: LEASE_MS }));
          const runIds = await Promise.all(
            Array.from({ length: RUNS }, async (_, index) => {
              const started = await workers[index % WORKERS]!.start('Thaw one K562 vial');
              expect(started.pendingQuestion?.kind).toBe('approval');
              return started.runId;
            }),
          );

          const outcomes = await Promise.all(
            runIds.map((runId) =>
              approveWithDuplicates(workers, runId, { duplicates: DUPLICATES, everyMs: DUPLICATE_EVERY_MS }),
            ),
          );
          console.log(`[load-leases] ${kind}:`, JSON.stringify(countOutcomes(outcomes.flat())));

          expect(runIds.flatMap((runId, index) => unexpectedOutcomes(runId, outcomes[index]!))).toEqual([]);
          const keys = runIds.map((runId) => `${runId}:${THAW_CALL_ID}`).sort();
          expect(Object.keys(executions).sort()).toEqual(keys);
          expect(new Set(Object.values(executions))).toEqual(new Set([1]));
          expect(Object.keys(finishes).sort()).toEqual(keys);
          expect(new Set(Object.values(finishes))).toEqual(new Set([1]));
          for (const runId of runIds) {
            const reads = await Promise.all(workers.map((worker) => worker.get(runId)));
            expect(reads.map((read) => read.status)).toEqual(reads.map(() => 'completed'));
            expect(reads[0]!.output).toBe(`Recorded ${runId}:${THAW_CALL_ID}.`);
          }
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});
