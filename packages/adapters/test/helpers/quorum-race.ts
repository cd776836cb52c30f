/**
 * The quorum race across processes (DESIGN §20, issue 31): the agent every approver process and
 * the test build from one definition, and the side-effect log its tool writes to, a PostgreSQL table
 * or a Redis list next to the store's rows, so executions are counted across processes by the
 * database rather than by any one of them.
 */
import { ConflictError, defineAgent, defineTool, type Sessions, TurnkitError } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';
import type { StoreAddress } from './lease-stores.js';

/** Who may approve the transfer, and how many of them must. */
export const ASSIGNEES = ['a', 'b', 'c'];
export const QUORUM = 2;
/** The id of the one call the model makes. */
export const TRANSFER_CALL_ID = 'call_transfer';

/**
 * The agent: one `transfer` call needing `QUORUM` of `ASSIGNEES`, then a final answer. Its tool
 * calls `onExecute`, then takes `toolMs` (long enough, a late approver finds the run still running).
 */
export function quorumAgent(onExecute: (key: string) => Promise<void>, toolMs = 0) {
  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    approval: { quorum: QUORUM, assignees: ASSIGNEES },
    execute: async ({ amount }, ctx) => {
      await onExecute(ctx.idempotencyKey);
      if (toolMs > 0) await new Promise((resolve) => setTimeout(resolve, toolMs));
      return { sent: amount };
    },
  });
  return defineAgent({
    name: 'bank',
    instructions: 'Bank assistant.',
    model: scriptedModel([
      { toolCalls: [{ id: TRANSFER_CALL_ID, name: 'transfer', arguments: { amount: 5 } }] },
      'sent',
    ]),
    tools: [transfer],
  });
}

/** One execution of the tool, as the side-effect log holds it. */
export interface Effect {
  key: string;
  /** The principal whose approval played the turn that executed it. */
  principal: string;
  pid: number;
}

/** The side-effect log of one backend, opened by one process. */
export interface EffectLog {
  /** Creates the table (Postgres); run once, before any process records. */
  prepare(): Promise<void>;
  record(effect: Effect): Promise<void>;
  list(): Promise<Effect[]>;
  /** Drops the table or list (the test, at the end). */
  drop(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the side-effect log next to the backend at `address` (Redis or PostgreSQL). */
export function openEffects(address: StoreAddress): EffectLog {
  if (address.kind === 'redis') {
    const client = new Redis(address.url!, { maxRetriesPerRequest: 1 });
    const key = `${address.location}effects`;
    return {
      prepare: async () => undefined,
      record: async (effect) => {
        await client.rpush(key, JSON.stringify(effect));
      },
      list: async () => (await client.lrange(key, 0, -1)).map((item) => JSON.parse(item) as Effect),
      drop: async () => {
        await client.del(key);
      },
      close: () => client.quit().then(),
    };
  }
  if (address.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: address.url, max: 2 });
    const table = `${address.location}_effects`;
    return {
      prepare: async () => {
        await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (key text, principal text, pid int)`);
      },
      record: async (effect) => {
        await pool.query(`INSERT INTO ${table} (key, principal, pid) VALUES ($1, $2, $3)`, [
          effect.key,
          effect.principal,
          effect.pid,
        ]);
      },
      list: async () => (await pool.query<Effect>(`SELECT key, principal, pid FROM ${table}`)).rows,
      drop: async () => {
        await pool.query(`DROP TABLE IF EXISTS ${table}`);
      },
      close: () => pool.end(),
    };
  }
  throw new Error(`no side-effect log for a ${address.kind} backend`);
}

/** What one approval request got, in a form that crosses a process boundary. */
export interface ApprovalOutcome {
  principal: string;
  /** How many `ConflictError`s it retried through. */
  conflicts: number;
  /** The result's status, or absent when it failed. */
  status?: string;
  /** The types of the events of the turn it played (empty: an idempotent read, nothing played). */
  events: string[];
  /** Its `interaction_resolved` event's approvals' principals, when it resolved the approval. */
  resolvedBy?: string[];
  /** Those approvals' rationales, in the same order. */
  rationales?: (string | undefined)[];
  /** Its `interaction_resolved` event's decision, when it resolved the approval. */
  decision?: string;
  /** Its `approval_recorded` event's principal, when it counted an approval short of the quorum. */
  recorded?: string;
  /** It got a `ConflictError` and then found the run decided (by a different decision): it gave up. */
  superseded?: true;
  /** The error code (a `TurnkitError`) or message it failed with. */
  error?: string;
}

/** The rationale `principal` approves with. */
export const rationaleOf = (principal: string) => `${principal} agrees`;

/**
 * Approves (or rejects) as `principal`, retrying on a `ConflictError` as a client would (it loads
 * the run and gives up once the run is past the pause); reports what it got.
 */
export async function decideAs(
  sessions: Sessions,
  runId: string,
  principal: string,
  decision: 'approve' | 'reject' = 'approve',
): Promise<ApprovalOutcome> {
  let conflicts = 0;
  for (;;) {
    try {
      const result = await sessions[decision](runId, { rationale: rationaleOf(principal) }, { principal });
      const outcome: ApprovalOutcome = {
        principal,
        conflicts,
        status: result.status,
        events: result.events.map((event) => event.type),
      };
      for (const event of result.events) {
        if (event.type === 'interaction_resolved') {
          outcome.decision = event.decision;
          outcome.resolvedBy = (event.approvals ?? []).map((approval) => approval.principal);
          outcome.rationales = (event.approvals ?? []).map((approval) => approval.rationale);
        }
        if (event.type === 'approval_recorded') outcome.recorded = event.principal;
      }
      return outcome;
    } catch (error) {
      if (error instanceof ConflictError && conflicts < 100) {
        conflicts++;
        // As the error says, load the run: once it is past the pause (someone decided otherwise),
        // retrying cannot succeed; while it waits or is played, try again.
        const { status } = await sessions.get(runId);
        if (status !== 'needs_input' && status !== 'running') {
          return { principal, conflicts, status, events: [], superseded: true };
        }
        await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 10));
        continue;
      }
      const failure = error instanceof TurnkitError ? error.code : String(error);
      return { principal, conflicts, events: [], error: failure };
    }
  }
}
