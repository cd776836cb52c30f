/**
 * Stop is not disconnect (DESIGN §20): `sessions.stop` ends a turn another worker plays before its
 * next model or tool call (a running tool finishes, its result kept), cancels a paused run's asks,
 * leaves a run at rest alone, and hides a run from a caller who did not start it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  createSessions,
  defineTool,
  memoryStore,
  type SnapshotStore,
} from '../src/index.js';
import { holdRun, stopCheckMs } from '../src/sessions/lease.js';
import { codeOf, expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';

/** A tool that waits until `release()` (so a stop can arrive while it runs), then a model that would call it again. */
function gatedTurn() {
  const runs: string[] = [];
  let modelCalls = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const thaw = defineTool({
    name: 'thaw',
    description: 'Thaw a vial',
    input: z.object({}),
    execute: async (_input, ctx) => {
      runs.push(ctx.idempotencyKey);
      started();
      await gate;
      return 'thawed';
    },
  });
  const agent = makeAgent(
    [
      () => {
        modelCalls++;
        return { toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] };
      },
      () => {
        modelCalls++;
        return 'Done.';
      },
    ],
    { tools: [thaw] },
  );
  return { agent, runs, release, running, modelCalls: () => modelCalls };
}

const approvalAgent = () =>
  makeAgent([
    { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
    'Done.',
  ]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sessions.stop', () => {
  it('ends a turn another worker plays before its next model call; the running tool finishes and its result is kept', async () => {
    const store = memoryStore();
    const { agent, runs, release, running, modelCalls } = gatedTurn();
    const events: AgentEvent[] = [];
    const worker = createSessions({ agent, store, leaseMs: 60_000 });
    const playing = worker.start('thaw one', { onEvent: (event) => events.push(event) });
    await running;
    const runId = events[0]!.runId;
    // Another process: it shares nothing with the worker but the store.
    const requested = await createSessions({ agent, store }).stop(runId, { reason: 'wrong vial' });
    expect(requested.stop).toBe('requested');
    expect(requested.status).toBe('running');
    // The bound on a stop: no call starts more than stopCheckMs after it (lease.ts).
    await sleep(stopCheckMs(60_000) + 20);
    release();
    const result = await playing;
    expect(result.status).toBe('aborted');
    expect(toolResults(result).call_thaw).toBe('thawed');
    expect(runs).toHaveLength(1);
    expect(modelCalls()).toBe(1);
    expect(events.at(-1)?.type).toBe('turn_aborted');
    expect(events.filter((event) => event.type === 'turn_aborted')).toHaveLength(1);
    expectOneResultPerCall(result);
    const stored = await worker.get(runId);
    expect(stored.status).toBe('aborted');
    expect(stored.version).toBe(result.version);
  });

  it('finds a new run started with no claim once it runs a tool: that write inserted it as its claim (issue 35)', async () => {
    const inner = memoryStore();
    const writes: (number | null)[] = [];
    const store: SnapshotStore = {
      ...inner,
      putParts: (runId, write, opts) => {
        writes.push(opts.expectedVersion);
        return inner.putParts!(runId, write, opts);
      },
    };
    const { agent, release, running, modelCalls } = gatedTurn();
    const sessions = createSessions({ agent, store });
    // A warm worker: its first start was claimed, and taught it the store's clock (aborted at once).
    expect((await sessions.start('warm up', { signal: AbortSignal.abort() })).status).toBe('aborted');
    writes.length = 0;
    const modelCallsBefore = modelCalls();
    const events: AgentEvent[] = [];
    const playing = sessions.start('thaw one', { onEvent: (event) => events.push(event) });
    await running;
    // One write so far: the insert before the tool ran (no claim before the model call).
    expect(writes).toEqual([null]);
    expect((await sessions.stop(events[0]!.runId)).stop).toBe('requested');
    await sleep(stopCheckMs(60_000) + 20);
    release();
    const result = await playing;
    expect(result.status).toBe('aborted');
    expect(modelCalls() - modelCallsBefore).toBe(1);
    expectOneResultPerCall(result);
  });

  it('lets a new message continue a stopped run: the stop mark went with the stopped turn', async () => {
    const store = memoryStore();
    const { agent, release, running } = gatedTurn();
    const sessions = createSessions({ agent, store });
    const events: AgentEvent[] = [];
    const playing = sessions.start('thaw one', { onEvent: (event) => events.push(event) });
    await running;
    await sessions.stop(events[0]!.runId);
    await sleep(stopCheckMs(60_000) + 20);
    release();
    const stopped = await playing;
    expect(stopped.status).toBe('aborted');
    const next = await sessions.send(stopped.runId, 'go on');
    expect(next.status).toBe('completed');
    expect(next.output).toBe('Done.');
  });

  it('cancels a paused run’s asks with the reason, each call gets its one result, and the run rests aborted', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: approvalAgent(), store });
    const paused = await sessions.start('thaw A1');
    expect(paused.status).toBe('needs_input');
    const events: AgentEvent[] = [];
    const stopped = await sessions.stop(
      paused.runId,
      { reason: 'wrong vial' },
      { onEvent: (e) => events.push(e) },
    );
    expect(stopped.stop).toBe('stopped');
    expect(stopped.status).toBe('aborted');
    expect(stopped.pending).toEqual([]);
    expectOneResultPerCall(stopped);
    expect(toolResults(stopped).call_thaw).toMatch(/approval_cancelled/);
    expect(toolResults(stopped).call_thaw).toMatch(/wrong vial/);
    const resolved = events.find((event) => event.type === 'interaction_resolved');
    expect(resolved).toMatchObject({ decision: 'cancelled', rationale: 'wrong vial' });
    expect(events.map((event) => event.type)).toEqual([
      'turn_started',
      'interaction_resolved',
      'turn_aborted',
    ]);
    expect(events[0]).toMatchObject({ trigger: 'stop' });
    expect((await sessions.get(paused.runId)).status).toBe('aborted');
    expect(await store.listExpired(new Date(8.64e15))).not.toContain(paused.runId);
  });

  it('tells its events once, after the write that won: a write that lost the race told nothing', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: approvalAgent(), store });
    const paused = await sessions.start('thaw A1');
    let refusals = 1;
    const racing: SnapshotStore = {
      ...store,
      async putParts(runId, write, opts) {
        if (refusals-- > 0) {
          // Another request wrote first (here: the same run, written again as it was).
          const row = (await store.get(runId))!;
          await store.put(runId, row.snapshot, { expectedVersion: row.version });
        }
        return store.putParts!(runId, write, opts);
      },
    };
    const events: AgentEvent[] = [];
    const stopped = await createSessions({ agent: approvalAgent(), store: racing }).stop(
      paused.runId,
      {},
      { onEvent: (event) => events.push(event) },
    );
    expect(stopped.stop).toBe('stopped');
    expect(events.map((event) => event.type)).toEqual([
      'turn_started',
      'interaction_resolved',
      'turn_aborted',
    ]);
    expect(stopped.events).toEqual(events);
  });

  it('lets retry continue a paused run it stopped (the model is called again)', async () => {
    const sessions = createSessions({ agent: approvalAgent(), store: memoryStore() });
    const paused = await sessions.start('thaw A1');
    await sessions.stop(paused.runId);
    const retried = await sessions.retry(paused.runId);
    expect(retried.status).toBe('completed');
    expectOneResultPerCall(retried);
  });

  it('leaves a run at rest as it is, and says so', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: makeAgent(['Hello.']), store });
    const done = await sessions.start('hi');
    const result = await sessions.stop(done.runId, { reason: 'late' });
    expect(result.stop).toBe('not_running');
    expect(result.status).toBe('completed');
    expect(result.version).toBe(done.version);
    expect((await store.get(done.runId))!.version).toBe(done.version);
    // A run stopped already is at rest too: stopping it again changes nothing.
    const approvals = createSessions({ agent: approvalAgent(), store });
    const paused = await approvals.start('thaw A1');
    const stopped = await approvals.stop(paused.runId);
    const again = await approvals.stop(paused.runId);
    expect(again.stop).toBe('not_running');
    expect(again.version).toBe(stopped.version);
  });

  it('ends the turn of a worker that died (its lease lapsed) as aborted', async () => {
    let clock = 1_000_000;
    const store = memoryStore({ now: () => clock });
    const sessions = createSessions({ agent: approvalAgent(), store, leaseMs: 1000 });
    const paused = await sessions.start('thaw A1');
    const deferred = await sessions.approve(paused.runId, {}, { defer: true });
    expect(deferred.status).toBe('running');
    clock += 5000;
    const stopped = await sessions.stop(paused.runId);
    expect(stopped.stop).toBe('stopped');
    expect(stopped.status).toBe('aborted');
    expect((await sessions.retry(paused.runId)).status).toBe('completed');
  });

  it('stops a background turn still in the queue: the worker that takes it starts no call', async () => {
    const log: string[] = [];
    const agent = makeAgent(
      [
        { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
        'Done.',
      ],
      {},
      log,
    );
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('thaw A1');
    const deferred = await sessions.approve(paused.runId, {}, { defer: true });
    expect((await sessions.stop(paused.runId)).stop).toBe('requested');
    const played = await sessions.play(deferred.claim!);
    expect(played.status).toBe('aborted');
    expect(log).toEqual([]);
    // Retry runs the approved call, once.
    expect((await sessions.retry(paused.runId)).status).toBe('completed');
    expect(log).toEqual(['K562x1']);
  });

  it('hides a run from a caller who did not start it (RUN_NOT_FOUND), and changes nothing', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: approvalAgent(), store });
    const paused = await sessions.start('thaw A1', { principal: 'alice' });
    expect(await codeOf(sessions.stop(paused.runId, {}, { principal: 'mallory' }))).toBe('RUN_NOT_FOUND');
    expect((await sessions.get(paused.runId)).status).toBe('needs_input');
    expect((await sessions.stop(paused.runId, {}, { principal: 'alice' })).stop).toBe('stopped');
  });

  it('refuses a reason that is not a string (ANSWER_INVALID), and an unknown run (RUN_NOT_FOUND)', async () => {
    const sessions = createSessions({ agent: approvalAgent(), store: memoryStore() });
    const paused = await sessions.start('thaw A1');
    expect(await codeOf(sessions.stop(paused.runId, { reason: 42 as unknown as string }))).toBe(
      'ANSWER_INVALID',
    );
    expect((await sessions.get(paused.runId)).status).toBe('needs_input');
    expect(await codeOf(sessions.stop('run_missing'))).toBe('RUN_NOT_FOUND');
  });

  it('refuses to stop a held turn on a store that cannot mark it (CONFIG_INVALID)', async () => {
    const { requestStop: _none, ...plain } = memoryStore();
    const store: SnapshotStore = plain;
    const { agent, release, running } = gatedTurn();
    const sessions = createSessions({ agent, store });
    const events: AgentEvent[] = [];
    const playing = sessions.start('thaw one', { onEvent: (event) => events.push(event) });
    await running;
    expect(await codeOf(sessions.stop(events[0]!.runId))).toBe('CONFIG_INVALID');
    release();
    expect((await playing).status).toBe('completed');
  });
});

describe('a hold on a run (lease.ts) and stop marks', () => {
  it('sees a stop mark at a renewal tick: it no longer holds, yet has not lost the run', async () => {
    const store = memoryStore();
    await store.put('run_tick', '{}', { expectedVersion: null, lease: { owner: 'w', ms: 30 } });
    const hold = holdRun({
      store,
      runId: 'run_tick',
      owner: 'w',
      version: 1,
      leaseMs: 30,
      claimedAt: performance.now(),
    });
    try {
      expect(hold.stopRequest).toBeNull();
      expect(await store.requestStop!('run_tick', { reason: 'enough' })).toBe(true);
      await sleep(60);
      expect(hold.stopRequest).toEqual({ reason: 'enough' });
      expect(await hold.holds()).toBe(false);
      expect(hold.lost).toBeNull();
    } finally {
      await hold.stop();
    }
  });

  it('asks a store that keeps stop marks before a call once its last answer is older than stopCheckMs, and no other store while its lease is fresh', async () => {
    const marked = memoryStore();
    let renewals = 0;
    const counting: SnapshotStore = {
      ...marked,
      renew: (runId, opts) => {
        renewals++;
        return marked.renew(runId, opts);
      },
    };
    // A store with neither stop marks nor a message queue (DESIGN §30) is not asked while the lease is fresh.
    const { requestStop: _none, queueMessage: _noQueue, ...plain } = counting;
    expect(stopCheckMs(60_000)).toBe(250);
    expect(stopCheckMs(1_000)).toBe(100);
    for (const [store, expected] of [
      [counting, 2],
      [plain, 0],
    ] as const) {
      renewals = 0;
      const runId = `run_${expected}`;
      await marked.put(runId, '{}', { expectedVersion: null, lease: { owner: 'w', ms: 60_000 } });
      const hold = holdRun({
        store,
        runId,
        owner: 'w',
        version: 1,
        leaseMs: 60_000,
        claimedAt: performance.now(),
      });
      // Right after the claim: the claim was the check.
      for (let call = 0; call < 3; call++) expect(await hold.holds()).toBe(true);
      expect(renewals).toBe(0);
      await sleep(stopCheckMs(60_000) + 20);
      // Past it: the first call asks (a renewal), the next rides on that answer.
      expect(await hold.holds()).toBe(true);
      expect(await hold.holds()).toBe(true);
      await sleep(stopCheckMs(60_000) + 20);
      expect(await hold.holds()).toBe(true);
      await hold.stop();
      expect(renewals).toBe(expected);
    }
  });
});
