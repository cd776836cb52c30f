/**
 * Assignees end to end over HTTP in store mode, on every store (DESIGN §20): a run alice started
 * whose approval names bob — bob reads it (200) and his approval runs the tool, carol gets 404 and
 * her approval changes nothing; `GET /interactions` lists the ask to bob, not to carol. The
 * handler, given no `onInteraction`, uses the agent's.
 */
import { randomUUID } from 'node:crypto';
import {
  defineAgent,
  defineTool,
  memoryStore,
  type PendingInteraction,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandler } from '../src/http/public.js';
import { postgresStore } from '../src/stores/postgres-store.js';
import { redisStore } from '../src/stores/redis-store.js';
import { send } from './http-fixtures.js';
import { serverUrl } from './store-contract.js';

const pgUrl = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');
const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

/** A store of its own (table or key prefix) and how to drop it. */
type StoreSetup = () => Promise<{ store: SnapshotStore; teardown: () => Promise<void> }>;

const stores: [string, StoreSetup | undefined][] = [
  ['memoryStore', async () => ({ store: memoryStore(), teardown: async () => {} })],
  [
    'postgresStore',
    pgUrl
      ? async () => {
          const pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
          const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
          const store = postgresStore(pool, { table });
          await store.migrate();
          return {
            store,
            teardown: async () => {
              await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending`);
              await pool.end();
            },
          };
        }
      : undefined,
  ],
  [
    'redisStore',
    redisUrl
      ? async () => {
          const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
          const prefix = `turnkit-test:${randomUUID()}:`;
          return {
            store: redisStore(client, { prefix }),
            teardown: async () => {
              const keys = await client.keys(`${prefix}*`);
              if (keys.length > 0) await client.del(...keys);
              await client.quit();
            },
          };
        }
      : undefined,
  ],
];

/** Callers name themselves in `x-user`. */
const byUser = (request: Request) => ({ principal: request.headers.get('x-user') ?? 'guest' });
const as = (user: string) => ({ 'x-user': user });

/** One approval-gated thaw, assigned to bob; the agent announces its asks itself. */
function labAgent(log: string[], announced: PendingInteraction[]) {
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw',
    input: z.object({ vials: z.number() }),
    needsApproval: true,
    approval: { assignees: ['bob'] },
    execute: ({ vials }) => {
      log.push(`thaw ${vials}`);
      return { recorded: true };
    },
  });
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'record_thaw', arguments: { vials: 2 } }] },
      'done',
    ]),
    tools: [thaw],
    onInteraction: (pending) => {
      announced.push(pending);
    },
  });
}

describe('HTTP: an assignee on a run another principal started, in store mode', () => {
  for (const [name, setup] of stores) {
    it.skipIf(!setup)(`${name}: bob reads, lists and approves alice's run; carol sees nothing`, async () => {
      const { store, teardown } = await setup!();
      try {
        const log: string[] = [];
        const announced: PendingInteraction[] = [];
        const handler = createHandler({ agent: labAgent(log, announced), store, authorize: byUser });
        const started = await send(handler, 'POST', '/runs', { input: 'thaw two' }, as('alice'));
        expect(started.status).toBe(201);
        const run = `/runs/${started.body.runId}`;
        const approvalId = started.body.pending[0].id;
        expect(announced.map((pending) => pending.id)).toEqual([approvalId]);

        expect((await send(handler, 'GET', run, undefined, as('bob'))).status).toBe(200);
        expect((await send(handler, 'GET', run, undefined, as('carol'))).status).toBe(404);

        const inboxOf = async (user: string) =>
          (await send(handler, 'GET', '/interactions', undefined, as(user))).body.items;
        expect(await inboxOf('bob')).toEqual([
          expect.objectContaining({ runId: started.body.runId, id: approvalId, assignees: ['bob'] }),
        ]);
        expect(await inboxOf('carol')).toEqual([]);

        const refused = await send(handler, 'POST', `${run}/approve`, {}, as('carol'));
        expect(refused.status).toBe(404);
        expect(log).toEqual([]);

        const approved = await send(handler, 'POST', `${run}/approve`, { rationale: 'ok' }, as('bob'));
        expect(approved.status).toBe(200);
        expect(approved.body.status).toBe('completed');
        expect(log).toEqual(['thaw 2']);
        expect(await inboxOf('bob')).toEqual([]);
        expect(announced).toHaveLength(1);
      } finally {
        await teardown();
      }
    });
  }
});
