/**
 * Quorum approvals racing across processes (DESIGN §20), on PostgreSQL and Redis: two sessions objects, each
 * with its own pool, approve the same call at once. A version conflict surfaces as a
 * `ConflictError` and the client retries; the retried approval still counts. The tool never runs
 * before the quorum, and never twice.
 */
import { randomUUID } from 'node:crypto';
import {
  ConflictError,
  createSessions,
  defineAgent,
  defineTool,
  type Sessions,
  type SnapshotStore,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type PostgresStore, postgresStore } from '../src/stores/postgres-store.js';
import { redisStore } from '../src/stores/redis-store.js';
import { serverUrl } from './store-contract.js';

const pgUrl = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');
const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

function quorumAgent(quorum: number, log: string[]) {
  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    approval: { quorum },
    execute: async ({ amount }) => {
      log.push(`transfer ${amount}`);
      return { done: true };
    },
  });
  return defineAgent({
    name: 'bank',
    instructions: 'Bank assistant.',
    model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'transfer', arguments: { amount: 5 } }] }, 'sent']),
    tools: [transfer],
  });
}

/** Approves as `principal`, retrying on a version conflict as a client would. */
async function approveWithRetry(sessions: Sessions, runId: string, principal: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      return await sessions.approve(runId, {}, { principal });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
    }
  }
  throw new Error(`${principal} never got its approval in`);
}

/** Two stores over the same rows, as two processes hold them, and how to drop what they wrote. */
type Backing = { stores: [SnapshotStore, SnapshotStore]; teardown: () => Promise<void> };

function describeQuorumRace(name: string, enabled: boolean, connect: () => Promise<Backing>) {
  describe.skipIf(!enabled)(`quorum approvals racing on ${name}`, () => {
    let backing: Backing;
    const log: string[] = [];
    let one: Sessions;
    let two: Sessions;
    let three: Sessions;
    let oneOfTwo: Sessions;
    let twoOfTwo: Sessions;

    beforeAll(async () => {
      backing = await connect();
      const { stores } = backing;
      one = createSessions({ agent: quorumAgent(3, log), store: stores[0]! });
      two = createSessions({ agent: quorumAgent(3, log), store: stores[1]! });
      three = createSessions({ agent: quorumAgent(3, log), store: stores[1]! });
      oneOfTwo = createSessions({ agent: quorumAgent(2, log), store: stores[0]! });
      twoOfTwo = createSessions({ agent: quorumAgent(2, log), store: stores[1]! });
    });

    afterAll(() => backing?.teardown());

    it('counts both racing approvals without running the tool early, then runs it once', async () => {
      log.length = 0;
      const started = await one.start('send 5');
      const [a, b] = await Promise.all([
        approveWithRetry(one, started.runId, 'a'),
        approveWithRetry(two, started.runId, 'b'),
      ]);
      expect(log).toEqual([]);
      const after = await one.get(started.runId);
      expect(after.status).toBe('needs_input');
      expect(after.pendingQuestion?.approvals?.map((item) => item.principal).sort()).toEqual(['a', 'b']);
      expect([a.status, b.status]).toEqual(['needs_input', 'needs_input']);
      const c = await approveWithRetry(three, started.runId, 'c');
      expect(c.status).toBe('completed');
      expect(log).toEqual(['transfer 5']);
    });

    it('runs the tool once when the deciding approvals race', async () => {
      for (let round = 0; round < 5; round++) {
        log.length = 0;
        const started = await oneOfTwo.start('send 5');
        await approveWithRetry(oneOfTwo, started.runId, 'a');
        await Promise.all([
          approveWithRetry(oneOfTwo, started.runId, 'b'),
          approveWithRetry(twoOfTwo, started.runId, 'c'),
        ]);
        const done = await twoOfTwo.get(started.runId);
        expect(done.status).toBe('completed');
        expect(log).toEqual(['transfer 5']);
      }
    });
  });
}

describeQuorumRace('Postgres', pgUrl !== undefined, async () => {
  const table = `turnkit_quorum_${randomUUID().replaceAll('-', '')}`;
  const pools = [0, 1].map(() => new pg.Pool({ connectionString: pgUrl, max: 4 }));
  const stores = pools.map((pool) => postgresStore(pool, { table })) as [PostgresStore, PostgresStore];
  await stores[0].migrate();
  return {
    stores,
    teardown: async () => {
      await pools[0]!.query(`DROP TABLE IF EXISTS ${table}, ${table}_log`);
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
});

describeQuorumRace('Redis', redisUrl !== undefined, async () => {
  const prefix = `turnkit-quorum:${randomUUID()}:`;
  const clients = [0, 1].map(() => new Redis(redisUrl!, { maxRetriesPerRequest: 1 }));
  return {
    stores: [redisStore(clients[0]!, { prefix }), redisStore(clients[1]!, { prefix })],
    teardown: async () => {
      const keys = await clients[0]!.keys(`${prefix}*`);
      if (keys.length > 0) await clients[0]!.del(...keys);
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
});
