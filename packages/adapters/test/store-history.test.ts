/**
 * Long runs on the file and server stores (DESIGN §22, issue 33): after compactions, a store's transcript
 * log still holds every message the run ever had (`get` with `transcript: 'full'`), the stored
 * snapshot and the model see the window, and a fresh process resumes the signed run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChatMessage,
  compaction,
  createSessions,
  defineAgent,
  defineTool,
  type ModelRequest,
  parseSnapshot,
  type SnapshotStore,
} from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileStore } from '../src/stores/file-store.js';
import { postgresStore } from '../src/stores/postgres-store.js';
import { redisStore } from '../src/stores/redis-store.js';
import { serverUrl } from './store-servers.js';

const pgUrl = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');
const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');
const SECRET = 'store-history-secret';

const noteTool = defineTool({
  name: 'note',
  description: 'Writes a note',
  input: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ saved: text }),
});

/** An agent calling `note` until the last `notes:N` has N results; its compactions are recorded. */
function compactingAgent(seen: ModelRequest[], removed: ChatMessage[][]) {
  let calls = 0;
  const step: ScriptedStep = (request) => {
    const user = [...request.messages].reverse().find((message) => message.role === 'user');
    const wanted = Number(/notes:(\d+)/.exec(user?.content ?? '')?.[1] ?? 0);
    const done = request.messages
      .slice(request.messages.lastIndexOf(user!))
      .filter((message) => message.role === 'tool').length;
    if (done >= wanted) return `done ${done}`;
    calls++;
    return {
      toolCalls: [{ id: `n${calls}`, name: 'note', arguments: { text: `n ${'lorem '.repeat(40)}` } }],
    };
  };
  const inner = scriptedModel(Array.from({ length: 400 }, () => step));
  return defineAgent({
    name: 'desk',
    instructions: 'You keep notes.',
    model: {
      name: inner.name,
      generate(request) {
        seen.push(request);
        return inner.generate(request);
      },
    },
    tools: [noteTool],
    snapshot: { secret: SECRET },
    history: compaction({
      maxTokens: 700,
      keepRecent: 3,
      compact: (messages) => {
        removed.push(messages);
        return `Summary ${removed.length}`;
      },
    }),
  });
}

const isSummary = (message: ChatMessage) => message.role === 'user' && /^Summary \d+$/.test(message.content);

async function longRun(store: SnapshotStore): Promise<void> {
  const seen: ModelRequest[] = [];
  const removed: ChatMessage[][] = [];
  const sessions = createSessions({ agent: compactingAgent(seen, removed), store });
  const first = await sessions.start('notes:6');
  await sessions.send(first.runId, 'notes:4');
  expect(removed.length).toBeGreaterThanOrEqual(2);
  // A fresh process: new agent and sessions, the store alone.
  const fresh = createSessions({ agent: compactingAgent(seen, removed), store });
  const last = await fresh.send(first.runId, 'notes:2');
  expect(last.status).toBe('completed');
  const full = await fresh.get(first.runId, { transcript: 'full' });
  expect(full.messages).toEqual([
    ...removed.flat().filter((message) => !isSummary(message)),
    ...last.messages.filter((message) => !isSummary(message)),
  ]);
  const stored = await fresh.get(first.runId);
  const decoded = parseSnapshot(stored.snapshot, { secret: SECRET });
  expect(decoded.state.context.messages).toEqual(last.messages);
  expect(full.messages.slice(decoded.state.context.window!.from)).toEqual(last.messages.slice(1));
  expect(seen.at(-1)!.messages.slice(1)).toEqual(last.messages.slice(0, -1));
}

describe.skipIf(!pgUrl)('postgresStore: a compacted run keeps its full history', () => {
  let pool: pg.Pool;
  const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
    await postgresStore(pool, { table }).migrate();
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log, ${table}_pending`);
    await pool.end();
  });

  it('compacts twice, get full returns every message, a fresh process resumes', async () => {
    await longRun(postgresStore(pool, { table }));
  });
});

describe.skipIf(!redisUrl)('redisStore: a compacted run keeps its full history', () => {
  let client: Redis;
  const prefix = `turnkit-test:${randomUUID()}:`;
  beforeAll(async () => {
    client = new Redis(redisUrl!, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
  });
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });

  it('compacts twice, get full returns every message, a fresh process resumes', async () => {
    await longRun(redisStore(client, { prefix }));
  });
});

describe('fileStore: a compacted run keeps its full history', () => {
  it('compacts twice, get full returns every message, a fresh process resumes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnkit-store-history-'));
    try {
      await longRun(fileStore(dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
