/**
 * Background turns (DESIGN §17): `defer: true` claims a turn and returns `running`; a worker's
 * `sessions.play(claim)` plays it. Of two deliveries of one claim one plays; a worker that hands the
 * turn back (shutting down) or dies leaves it to the next delivery; every tool call runs once when
 * nobody died, and at most twice with the same idempotency key when a worker did.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  ConflictError,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
} from '../src/index.js';
import { TAKEOVER_SEQ_GAP } from '../src/store.js';
import { scriptedModel } from '../src/testing/index.js';
import { expectOneResultPerCall, makeAgent } from './helpers.js';

/** An agent whose `thaw` tool waits for the test to let it go, counting each start and its key. */
function gatedAgent() {
  const starts: string[] = [];
  const gates: Array<() => void> = [];
  const started: Array<() => void> = [];
  const thaw = defineTool({
    name: 'thaw',
    description: 'Thaw a vial',
    input: z.object({ cellLine: z.string() }),
    needsApproval: true,
    execute: async ({ cellLine }, ctx) => {
      starts.push(ctx.idempotencyKey);
      for (const notify of started.splice(0)) notify();
      await new Promise<void>((resolve, reject) => {
        gates.push(resolve);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      });
      return { thawed: cellLine };
    },
  });
  const agent = defineAgent({
    name: 'freezer',
    instructions: 'Thaw what you are asked.',
    model: scriptedModel([{ toolCalls: [{ name: 'thaw', arguments: { cellLine: 'K562' } }] }, 'Thawed.']),
    tools: [thaw],
  });
  return {
    agent,
    starts,
    /** Resolves when the tool's next start has begun. */
    nextStart: () => new Promise<void>((resolve) => started.push(resolve)),
    open: () => {
      for (const gate of gates.splice(0)) gate();
    },
  };
}

describe('sessions with defer: true', () => {
  it('claims the first turn and returns running; play plays it to its pause', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: makeAgent([{ toolCalls: [] }, 'unused']), store });
    const deferred = await sessions.start('Find K562', { defer: true });
    expect(deferred.status).toBe('running');
    expect(deferred.claim).toEqual({ runId: deferred.runId, owner: expect.any(String), version: 1 });
    expect((await sessions.get(deferred.runId)).status).toBe('running');
    const played = await sessions.play(deferred.claim!);
    expect(played).toMatchObject({ runId: deferred.runId, status: 'completed', output: '' });
    expect(played.version).toBeGreaterThan(deferred.version);
  });

  it('defers an approval: the same decision again reads running, another is a conflict; the tool runs once', async () => {
    const gated = gatedAgent();
    const sessions = createSessions({ agent: gated.agent, store: memoryStore() });
    const paused = await sessions.start('Thaw K562');
    expect(paused.pending[0]?.kind).toBe('approval');
    const deferred = await sessions.approve(paused.runId, {}, { defer: true });
    expect(deferred.status).toBe('running');
    expect(gated.starts).toEqual([]);
    // A double click: the same decision reads the run; a different one is refused.
    const again = await sessions.approve(paused.runId, {}, { defer: true });
    expect(again.status).toBe('running');
    expect(again.claim).toBeUndefined();
    await expect(sessions.reject(paused.runId)).rejects.toBeInstanceOf(ConflictError);
    const running = gated.nextStart();
    const playing = sessions.play(deferred.claim!);
    await running;
    gated.open();
    const done = await playing;
    expect(done.status).toBe('completed');
    expect(gated.starts).toEqual([`${paused.runId}:call_0_0`]);
    expectOneResultPerCall(done);
  });

  it('lets one of two deliveries of a claim play it; the other is told the run is busy, then reads it at rest', async () => {
    const gated = gatedAgent();
    const sessions = createSessions({ agent: gated.agent, store: memoryStore() });
    const paused = await sessions.start('Thaw K562');
    const { claim } = await sessions.approve(paused.runId, {}, { defer: true });
    const running = gated.nextStart();
    const first = sessions.play(claim!);
    await running;
    await expect(sessions.play(claim!)).rejects.toBeInstanceOf(ConflictError);
    gated.open();
    expect((await first).status).toBe('completed');
    const late = await sessions.play(claim!);
    expect(late.status).toBe('completed');
    expect(gated.starts).toHaveLength(1);
  });

  it('hands a turn back: nothing is written, the lease is released, and the next delivery finishes it', async () => {
    const gated = gatedAgent();
    const store = memoryStore();
    const sessions = createSessions({ agent: gated.agent, store });
    const paused = await sessions.start('Thaw K562');
    const { claim } = await sessions.approve(paused.runId, {}, { defer: true });
    const events: AgentEvent[] = [];
    const shutdown = new AbortController();
    const running = gated.nextStart();
    const first = sessions.play(claim!, {
      handBack: shutdown.signal,
      onEvent: (event) => events.push(event),
    });
    await running;
    shutdown.abort();
    await expect(first).rejects.toThrow(/handed the turn back/);
    const row = await store.get(paused.runId);
    expect(row?.lease?.live ?? false).toBe(false);
    expect((await sessions.get(paused.runId)).status).toBe('running');

    const resumed: AgentEvent[] = [];
    const second = sessions.play(claim!, { onEvent: (event) => resumed.push(event) });
    await gated.nextStart();
    gated.open();
    const done = await second;
    expect(done.status).toBe('completed');
    // The interrupted call ran again, under the same idempotency key.
    expect(gated.starts).toEqual([`${paused.runId}:call_0_0`, `${paused.runId}:call_0_0`]);
    expectOneResultPerCall(done);
    // The taken-over turn numbers its events past anything the first worker could have published.
    const lastFirst = Math.max(...events.map((event) => event.seq));
    expect(resumed[0]).toMatchObject({ type: 'turn_started', trigger: 'continue' });
    expect(resumed[0]!.seq).toBeGreaterThan(lastFirst);
    expect(resumed[0]!.seq - events[0]!.seq).toBeGreaterThanOrEqual(TAKEOVER_SEQ_GAP);
  });

  it('takes over a claim whose worker died (its lease lapsed); the dead worker writes nothing when it wakes', async () => {
    const gated = gatedAgent();
    let clock = 1_000_000;
    const store = memoryStore({ now: () => clock });
    const sessions = createSessions({ agent: gated.agent, store, leaseMs: 60_000 });
    const paused = await sessions.start('Thaw K562');
    const { claim } = await sessions.approve(paused.runId, {}, { defer: true });
    const running = gated.nextStart();
    const dead = sessions.play(claim!);
    await running;
    // The worker hangs inside the tool; its lease lapses on the store's clock.
    clock += 120_000;
    const second = sessions.play(claim!);
    await gated.nextStart();
    gated.open();
    const done = await second;
    expect(done.status).toBe('completed');
    await expect(dead).rejects.toBeInstanceOf(ConflictError);
    expect((await sessions.get(paused.runId)).status).toBe('completed');
    expect(gated.starts).toEqual([`${paused.runId}:call_0_0`, `${paused.runId}:call_0_0`]);
  });

  it('is played by the next request when no worker took it within its lease', async () => {
    let clock = 1_000_000;
    const store = memoryStore({ now: () => clock });
    const sessions = createSessions({
      agent: makeAgent([
        { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] },
        'Found.',
        'Bye.',
      ]),
      store,
      leaseMs: 60_000,
    });
    const deferred = await sessions.start('Find K562', { defer: true });
    clock += 120_000;
    const next = await sessions.send(deferred.runId, 'Thanks');
    expect(next.status).toBe('completed');
    expect(next.output).toBe('Bye.');
    // The job, delivered late, finds nothing left to play.
    const late = await sessions.play(deferred.claim!);
    expect(late).toMatchObject({ status: 'completed', version: next.version });
  });

  it('refuses to play a claim of a run that is not stored', async () => {
    const sessions = createSessions({ agent: makeAgent(['hi']), store: memoryStore() });
    await expect(sessions.play({ runId: 'run_missing', owner: 'x', version: 1 })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
  });
});
