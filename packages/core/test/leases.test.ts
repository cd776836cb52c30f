/**
 * Leases and fencing in sessions (DESIGN §12): a turn slower than its lease keeps the run while its
 * worker renews; duplicate requests meanwhile never run a tool twice; a worker that lost its claim
 * starts no further model or tool call and writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConflictError,
  createSessions,
  defineTool,
  memoryStore,
  type SessionResult,
  type SnapshotStore,
} from '../src/index.js';
import { makeAgent, toolResults } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An approval-gated tool that takes `ms` and counts its executions by idempotency key. */
function slowTool(ms: number, runs: string[]) {
  return defineTool({
    name: 'thaw',
    description: 'Thaw a vial (slow)',
    input: z.object({}),
    needsApproval: true,
    execute: async (_input, ctx) => {
      runs.push(ctx.idempotencyKey);
      await sleep(ms);
      return 'thawed';
    },
  });
}

/**
 * Thaws (the first call waits until `release()`), then the model asks for a label, then it is done.
 * `runs` lists the thaws by idempotency key and each label; `modelCalls` counts calls after the thaw.
 */
function fencing() {
  const runs: string[] = [];
  let modelCalls = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { agent: fencingAgent(runs, gate, () => modelCalls++), runs, release, modelCalls: () => modelCalls };
}

function fencingAgent(runs: string[], gate: Promise<void>, countModelCall: () => void) {
  const slow = defineTool({
    name: 'thaw',
    description: 'Thaw a vial',
    input: z.object({}),
    needsApproval: true,
    execute: async (_input, ctx) => {
      runs.push(ctx.idempotencyKey);
      if (runs.length === 1) await gate;
      return 'thawed';
    },
  });
  const label = defineTool({
    name: 'label',
    description: 'Label the tube',
    input: z.object({}),
    execute: () => {
      runs.push('label');
      return 'labelled';
    },
  });
  return makeAgent(
    [
      { toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] },
      () => {
        countModelCall();
        return { toolCalls: [{ id: 'call_label', name: 'label', arguments: {} }] };
      },
      'Done.',
    ],
    { tools: [slow, label] },
  );
}

describe('leases', () => {
  it('keeps a turn that lasts 3× leaseMs: duplicates every leaseMs/2 read the run, the tool runs once', async () => {
    const leaseMs = 150;
    const runs: string[] = [];
    const agent = makeAgent([{ toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] }, 'Done.'], {
      tools: [slowTool(leaseMs * 3, runs)],
    });
    const sessions = createSessions({ agent, store: memoryStore(), leaseMs });
    const paused = await sessions.start('thaw one');
    expect(paused.status).toBe('needs_input');
    const first = sessions.approve(paused.runId);
    const duplicates: SessionResult[] = [];
    for (let i = 0; i < 6; i++) {
      await sleep(leaseMs / 2);
      duplicates.push(await sessions.approve(paused.runId));
    }
    const result = await first;
    expect(result.status).toBe('completed');
    expect(toolResults(result).call_thaw).toBe('thawed');
    expect(runs).toEqual([`${paused.runId}:call_thaw`]);
    // Requests while the worker held the run saw it running; none started it again.
    expect(duplicates.some((duplicate) => duplicate.status === 'running')).toBe(true);
    for (const duplicate of duplicates) expect(['running', 'completed']).toContain(duplicate.status);
    expect((await sessions.get(paused.runId)).status).toBe('completed');
  });

  it('fences a worker whose lease lapsed (its renewals failed): no further model or tool call, no write', async () => {
    const leaseMs = 60;
    const store = memoryStore();
    const partitioned: SnapshotStore = { ...store, renew: () => Promise.reject(new Error('ETIMEDOUT')) };
    const { agent, runs, release: releaseFirst, modelCalls } = fencing();
    const paused = await createSessions({ agent, store, leaseMs }).start('thaw one');
    const stalled = createSessions({ agent, store: partitioned, leaseMs }).approve(paused.runId);
    await sleep(leaseMs * 2);
    // Its lease lapsed in the store: another worker takes the run over and finishes the turn.
    const takeover = await createSessions({ agent, store, leaseMs }).retry(paused.runId);
    expect(takeover.status).toBe('completed');
    releaseFirst();
    await expect(stalled).rejects.toThrow(/lost its claim/);
    expect(runs.filter((entry) => entry === 'label')).toHaveLength(1);
    expect(runs.filter((entry) => entry.endsWith(':call_thaw'))).toHaveLength(2);
    expect(modelCalls()).toBe(1);
    expect((await createSessions({ agent, store }).get(paused.runId)).status).toBe('completed');
  });

  it('fences a worker whose renewal is refused (the store says another worker took the run)', async () => {
    const leaseMs = 60;
    let clock = 0;
    const store = memoryStore({ now: () => clock });
    const { agent, runs, release: releaseFirst, modelCalls } = fencing();
    const sessions = createSessions({ agent, store, leaseMs });
    const paused = await sessions.start('thaw one');
    const stalled = sessions.approve(paused.runId).catch((caught: unknown) => caught);
    await sleep(10);
    // The store's clock runs ahead of the worker's: the lease is over in the store's eyes.
    clock += leaseMs * 10;
    const takeover = await sessions.retry(paused.runId);
    expect(takeover.status).toBe('completed');
    // The stalled worker's next renewal is refused: it stops at once, without waiting for its tool.
    await sleep(leaseMs);
    const error = await stalled;
    releaseFirst();
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/renewal was refused/);
    expect(runs.filter((entry) => entry === 'label')).toHaveLength(1);
    expect(modelCalls()).toBe(1);
  });

  it('judges leases by the store clock, never by the call’s `now`', async () => {
    let clock = 1_000_000;
    const store = memoryStore({ now: () => clock });
    const runs: string[] = [];
    const agent = makeAgent([{ toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] }, 'Done.'], {
      tools: [slowTool(0, runs)],
    });
    const sessions = createSessions({ agent, store, leaseMs: 1000 });
    const paused = await sessions.start('go');
    // A claim left by a worker that died (written as the store would, with a live lease).
    const row = (await store.get(paused.runId))!;
    await store.put(paused.runId, row.snapshot, {
      expectedVersion: row.version,
      lease: { owner: 'dead', ms: 1000 },
    });
    const skewed = { now: new Date(Date.now() + 5 * 60_000) };
    await expect(sessions.approve(paused.runId, {}, skewed)).rejects.toBeInstanceOf(ConflictError);
    clock += 1001;
    expect((await sessions.approve(paused.runId, {}, skewed)).status).toBe('completed');
    expect(runs).toHaveLength(1);
  });
});
