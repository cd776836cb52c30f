/**
 * Late input across processes (DESIGN §30): a worker process is killed with SIGKILL inside a tool's
 * `execute` while a message is queued on its run from this process. Once its lease lapses on the
 * store's clock, this process takes the run over (`retry`): the tool runs again once (same key), and
 * the queued message reaches the model once, right after the tool's result — on the file, Redis and
 * PostgreSQL stores.
 */
import { createSessions } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { CHARGE_CALL_ID, countingChargeAgent } from './helpers/in-doubt-agent.js';
import { bundleInDoubtWorker, killedInsideExecute, LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
bundleInDoubtWorker();
const LATE = 'also e-mail the receipt';

describe('a message queued while the worker dies mid-tool is delivered once, after the takeover', () => {
  for (const kind of ['file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      kind,
      async () => {
        const backend = await sharedStores(kind, 'late-input', 1, servers.urls[kind]);
        try {
          const store = backend.stores[0]!;
          const runId = `run_late_${Date.now().toString(36)}`;
          const key = await killedInsideExecute({
            address: backend.address!,
            leaseMs: LEASE_MS,
            policy: 'retry',
            runId,
          });
          const { agent, executions } = countingChargeAgent('retry');
          const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
          // Queued against the dead worker's claim (whether or not its lease has lapsed yet).
          const queued = await sessions.send(runId, LATE, { mode: 'queue', messageId: 'receipt' });
          expect(queued.queued).toEqual({ messageId: 'receipt' });
          await leaseLapse(store, runId);
          // A message that found the lease lapsed already took the run over itself; else retry does.
          const taken = queued.status === 'completed' ? queued : await sessions.retry(runId);
          expect(taken.status).toBe('completed');
          expect(executions).toEqual([key]);
          // The model's last request ended with the message, after the charge's one result.
          expect(taken.output).toBe(`Done: ${LATE}`);
          const final = await sessions.get(runId);
          expect(final.messages.filter((message) => message.content === LATE)).toHaveLength(1);
          expect(
            final.messages.filter(
              (message) => message.role === 'tool' && message.tool_call_id === CHARGE_CALL_ID,
            ),
          ).toHaveLength(1);
          expect((await store.get(runId))?.queued).toBeUndefined();
        } finally {
          await backend.teardown();
        }
      },
      30_000,
    );
  }
});
