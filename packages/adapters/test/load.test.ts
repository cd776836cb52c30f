/**
 * The load test of the adapters issue (bounded, loopback only): for each store, 100 runs paused on
 * one AskUserQuestion, each answered by 10 concurrent `sessions.answer` calls (equivalent forms of
 * one answer and different answers, spread over several "workers" — sessions with their own store
 * client — as stateless servers would be). Every run must continue exactly once (one post-answer
 * model call, one execution per idempotency key), every other request must get `ConflictError` or
 * an idempotent result (status running/completed), and every run must end stored as completed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Agent,
  type Answers,
  askUserQuestion,
  ConflictError,
  createSessions,
  defineAgent,
  defineTool,
  type ModelAdapter,
  memoryStore,
  type SessionResult,
  type SnapshotStore,
} from '@turnkit/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileStore } from '../src/stores/file-store.js';
import { postgresStore } from '../src/stores/postgres-store.js';
import { redisStore } from '../src/stores/redis-store.js';
import { serverUrl } from './store-contract.js';

const RUNS = 100;
const ANSWERS_PER_RUN = 10;
/** Sessions over their own store client each (their own Redis connection, pg pool, fileStore). */
const WORKERS = 4;
/** Runs being answered at once (so up to 100 requests in flight). */
const RUNS_AT_ONCE = 10;

const pgUrl = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');
const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

const authQuestion = {
  question: 'Which auth method?',
  header: 'Auth',
  options: [
    { label: 'JWT', description: 'Stateless tokens' },
    { label: 'OAuth', description: 'Delegated login' },
  ],
};

/** The answers sent to each run: equivalent forms of three decisions, and the tool result each gives. */
const DECISIONS = {
  jwt: '{"answers":{"Auth":"JWT"}}',
  oauth: '{"answers":{"Auth":"OAuth"}}',
  jwtWithNote: '{"answers":{"Auth":"JWT (note: rotate keys)"}}',
} as const;
type Decision = keyof typeof DECISIONS;
const ANSWER_FORMS: { decision: Decision; answers: Answers }[] = [
  { decision: 'jwt', answers: 'JWT' },
  { decision: 'jwt', answers: ['JWT'] },
  { decision: 'jwt', answers: { Auth: 'JWT' } },
  { decision: 'jwt', answers: { Auth: { selected: ['JWT'] } } },
  { decision: 'jwt', answers: { 'Which auth method?': ['JWT'] } },
  { decision: 'jwt', answers: 'JWT' },
  { decision: 'oauth', answers: 'OAuth' },
  { decision: 'oauth', answers: { Auth: ['OAuth'] } },
  { decision: 'jwtWithNote', answers: { Auth: { selected: ['JWT'], note: 'rotate keys' } } },
  { decision: 'oauth', answers: { q0: 'OAuth' } },
];

/** What the model and the tool saw, per run. */
interface Counters {
  postAnswerModelCalls: Map<string, number>;
  executions: Map<string, number>;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A stateless model keyed on the run: the user message is the run id. Step 1 asks the question;
 * step 2 (the continuation after the answer, counted) calls `record_choice` with the answer it read;
 * step 3 says done.
 */
function loadAgent(counters: Counters): Agent {
  const model: ModelAdapter = {
    name: 'load-model',
    async generate({ messages }) {
      await pause();
      const runId = String(messages.find((message) => message.role === 'user')?.content);
      const assistants = messages.filter((message) => message.role === 'assistant').length;
      const last = messages[messages.length - 1];
      if (assistants === 0) {
        const args = JSON.stringify({ questions: [authQuestion] });
        return {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'ask', type: 'function', function: { name: 'AskUserQuestion', arguments: args } },
            ],
          },
        };
      }
      if (assistants === 1) {
        bump(counters.postAnswerModelCalls, runId);
        await pause();
        const args = JSON.stringify({ answer: last?.role === 'tool' ? last.content : '' });
        return {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'rec', type: 'function', function: { name: 'record_choice', arguments: args } },
            ],
          },
        };
      }
      return { message: { role: 'assistant', content: `done ${runId}` } };
    },
  };
  const recordChoice = defineTool({
    name: 'record_choice',
    description: 'Record the chosen auth method (a side effect: must run once per run).',
    input: z.object({ answer: z.string() }),
    execute: async (_input, ctx) => {
      bump(counters.executions, ctx.idempotencyKey);
      await pause();
      return { recorded: true };
    },
  });
  return defineAgent({
    name: 'load',
    instructions: 'Ask, record, finish.',
    model,
    tools: [recordChoice, askUserQuestion()],
  });
}

/** A store per worker over one shared backend, and how to clean up. */
interface Backend {
  stores: SnapshotStore[];
  teardown(): Promise<void>;
}

/** A deterministic shuffle (per run), so the winning decision varies from run to run. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761 + 1;
  for (let index = out.length - 1; index > 0; index--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const other = state % (index + 1);
    [out[index], out[other]] = [out[other]!, out[index]!];
  }
  return out;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    await Promise.all(items.slice(start, start + size).map(work));
  }
}

async function loadTest(name: string, backend: Backend): Promise<void> {
  const counters: Counters = { postAnswerModelCalls: new Map(), executions: new Map() };
  const agent = loadAgent(counters);
  const workers = backend.stores.map((store) => createSessions({ agent, store }));
  const tag = randomBytes(4).toString('hex');
  const runIds = Array.from({ length: RUNS }, (_, index) => `load_${name}_${tag}_${index}`);
  const counts = {
    runs: RUNS,
    answers: 0,
    winners: 0,
    conflicts: 0,
    conflictsOfTheWinningAnswer: 0,
    idempotentRunning: 0,
    idempotentCompleted: 0,
  };
  const unexpected: string[] = [];

  try {
    await inBatches(runIds, 20, async (runId) => {
      const started = await workers[0]!.start({ input: runId, runId });
      expect(started.status).toBe('needs_input');
    });

    const began = performance.now();
    await inBatches(runIds, RUNS_AT_ONCE, async (runId) => {
      const forms = shuffled(ANSWER_FORMS, runIds.indexOf(runId) + 1);
      const outcomes = await Promise.allSettled(
        forms.map((form, request) => workers[request % WORKERS]!.answer(runId, { answers: form.answers })),
      );
      counts.answers += outcomes.length;
      const isWinner = (outcome: PromiseSettledResult<SessionResult>) =>
        outcome.status === 'fulfilled' && outcome.value.events.length > 0;
      const winners = outcomes.flatMap((outcome, index) => (isWinner(outcome) ? [index] : []));
      if (winners.length !== 1) {
        unexpected.push(`${runId}: ${winners.length} requests continued the run`);
        return;
      }
      const winning = forms[winners[0]!]!.decision;
      counts.winners++;
      outcomes.forEach((outcome, index) => {
        if (index === winners[0]) {
          const result = (outcome as PromiseFulfilledResult<SessionResult>).value;
          if (result.status !== 'completed') unexpected.push(`${runId}: the winner ended ${result.status}`);
          return;
        }
        const decision = forms[index]!.decision;
        if (outcome.status === 'rejected') {
          if (outcome.reason instanceof ConflictError) {
            counts.conflicts++;
            if (decision === winning) counts.conflictsOfTheWinningAnswer++;
          } else {
            unexpected.push(`${runId}: request ${index} threw ${String(outcome.reason)}`);
          }
          return;
        }
        const { status } = outcome.value;
        if (status !== 'running' && status !== 'completed') {
          unexpected.push(`${runId}: request ${index} returned status ${status}`);
        } else if (decision !== winning) {
          unexpected.push(
            `${runId}: a different answer (${decision} after ${winning}) was accepted as a repeat`,
          );
        } else if (status === 'running') {
          counts.idempotentRunning++;
        } else {
          counts.idempotentCompleted++;
        }
      });
      const stored = await workers[1 % WORKERS]!.get(runId);
      const toolMessages = stored.messages.filter((message) => message.role === 'tool');
      if (stored.status !== 'completed') unexpected.push(`${runId}: stored as ${stored.status}`);
      if (toolMessages.length !== 2 || toolMessages[0]?.content !== DECISIONS[winning]) {
        unexpected.push(`${runId}: stored tool results ${JSON.stringify(toolMessages)} (winner: ${winning})`);
      }
    });
    const elapsedMs = Math.round(performance.now() - began);

    const idempotent = counts.idempotentRunning + counts.idempotentCompleted;
    console.log(
      `[load] ${name}: runs=${counts.runs} answers=${counts.answers} winners=${counts.winners} ` +
        `conflicts=${counts.conflicts} (of which the winning answer: ${counts.conflictsOfTheWinningAnswer}) ` +
        `idempotent repeats=${idempotent} (running=${counts.idempotentRunning}, completed=${counts.idempotentCompleted}) ` +
        `post-answer model calls=${sum(valuesOf(counters.postAnswerModelCalls))} ` +
        `tool executions=${sum(valuesOf(counters.executions))} elapsed=${elapsedMs}ms`,
    );

    expect(unexpected).toEqual([]);
    expect(counts.winners).toBe(RUNS);
    expect(counts.answers).toBe(RUNS * ANSWERS_PER_RUN);
    expect(counts.winners + counts.conflicts + idempotent).toBe(counts.answers);
    // Exactly one continuation and one side effect per run, under the run's own idempotency key.
    expect([...counters.postAnswerModelCalls.keys()].sort()).toEqual([...runIds].sort());
    expect(new Set(counters.postAnswerModelCalls.values())).toEqual(new Set([1]));
    expect([...counters.executions.keys()].sort()).toEqual(runIds.map((runId) => `${runId}:rec`).sort());
    expect(new Set(counters.executions.values())).toEqual(new Set([1]));
    // Nothing lost: every run, read back by every worker, is completed.
    for (const runId of runIds) {
      const reads = await Promise.all(workers.map((worker) => worker.get(runId)));
      for (const read of reads) expect(read.status).toBe('completed');
    }
  } finally {
    await backend.teardown();
  }
}

function valuesOf(map: Map<string, number>): number[] {
  return [...map.values()];
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

describe('load: 100 runs × 10 concurrent answers through createSessions', () => {
  it('memoryStore (baseline)', async () => {
    const store = memoryStore();
    await loadTest('memory', {
      stores: Array.from({ length: WORKERS }, () => store),
      teardown: async () => undefined,
    });
  });

  it('fileStore', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnkit-load-'));
    await loadTest('file', {
      stores: Array.from({ length: WORKERS }, () => fileStore(dir)),
      teardown: () => rm(dir, { recursive: true, force: true }),
    });
  });

  it.skipIf(!redisUrl)('redisStore', async () => {
    const prefix = `turnkit-load:${randomBytes(6).toString('hex')}:`;
    const clients = Array.from({ length: WORKERS }, () => new Redis(redisUrl!, { maxRetriesPerRequest: 1 }));
    await loadTest('redis', {
      stores: clients.map((client) => redisStore(client, { prefix })),
      teardown: async () => {
        const keys = await clients[0]!.keys(`${prefix}*`);
        if (keys.length > 0) await clients[0]!.del(...keys);
        await Promise.all(clients.map((client) => client.quit()));
      },
    });
  });

  it.skipIf(!pgUrl)('postgresStore', async () => {
    const table = `turnkit_load_${randomBytes(6).toString('hex')}`;
    const pools = Array.from({ length: WORKERS }, () => new pg.Pool({ connectionString: pgUrl, max: 5 }));
    const stores = pools.map((pool) => postgresStore(pool, { table }));
    await stores[0]!.migrate();
    await loadTest('postgres', {
      stores,
      teardown: async () => {
        await pools[0]!.query(`DROP TABLE IF EXISTS ${table}`);
        await Promise.all(pools.map((pool) => pool.end()));
      },
    });
  });
});
