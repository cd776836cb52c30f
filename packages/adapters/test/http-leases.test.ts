/**
 * Issue 11's own reproduction, over HTTP, on every store: `createHandler({ agent, store, leaseMs:
 * 1000 })` with an approval-gated tool that takes 1.5 s; POST /runs/:id/approve, and 1.2 s later
 * POST it again. The first request renews its claim while the tool runs, so the second, sent after
 * the first lease would have lapsed, finds the run still held and only reads it: the tool runs
 * once, and the first response is the completed run. (The first release did not renew: the second
 * request took over the expired claim, ran the tool again, and the first answered `running`.)
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { bump, sleep, slowApprovalAgent, THAW_CALL_ID } from './helpers/lease-agent.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';
import { send } from './http-fixtures.js';

const LEASE_MS = 1_000;
const TOOL_MS = 1_500;
const SECOND_REQUEST_AFTER_MS = 1_200;

const servers = findServers();

describe(`createHandler with leaseMs ${LEASE_MS} and a tool of ${TOOL_MS} ms: an approval sent twice`, () => {
  for (const kind of ['memory', 'file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: runs the tool once; the first response is completed, the second a read`,
      async () => {
        const backend = await sharedStores(kind, 'http-leases', 1, servers.urls[kind]);
        const executions: Record<string, number> = {};
        const agent = slowApprovalAgent({ toolMs: TOOL_MS, onExecute: (key) => bump(executions, key) });
        try {
          const handler = createHandler({ agent, store: backend.stores[0]!, leaseMs: LEASE_MS });
          const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
          expect(started.status).toBe(201);
          expect(started.body.pending[0]).toMatchObject({ kind: 'approval', toolName: 'record_thaw' });
          const { runId } = started.body;

          const first = send(handler, 'POST', `/runs/${runId}/approve`, {});
          await sleep(SECOND_REQUEST_AFTER_MS);
          const second = await send(handler, 'POST', `/runs/${runId}/approve`, {});
          expect(second.status).toBe(200);
          expect(['running', 'completed']).toContain(second.body.status);

          const answered = await first;
          expect(answered.status).toBe(200);
          expect(answered.body).toMatchObject({ runId, status: 'completed' });
          expect(answered.body.output).toBe(`Recorded ${runId}:${THAW_CALL_ID}.`);
          expect(executions).toEqual({ [`${runId}:${THAW_CALL_ID}`]: 1 });

          const read = await send(handler, 'GET', `/runs/${runId}`);
          expect(read.body).toMatchObject({ status: 'completed', output: answered.body.output });
          expect(read.body.version).toBe(answered.body.version);
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});
