/**
 * Replays in client-held mode (DESIGN §13): by default an older snapshot resumes its run again (the
 * documented consequence: tools run again); with `replay: 'reject'` each snapshot resumes at most
 * once, remembered in a replay store (in memory, or on Redis).
 */
import { memoryStore, TurnkitError } from '@turnkit/core';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createHandler,
  type HandlerOptions,
  memoryReplayStore,
  type ReplayStore,
  redisReplayStore,
} from '../src/http/public.js';
import { inventoryAgent, respellings, SECRET, send } from './http-fixtures.js';
import { serverUrl } from './store-servers.js';

const answer = { answers: { 'Cell lines': ['K562'] } };

/** A client-held handler and a run paused at its approval (the thaw). */
async function pausedAtApproval(extra: Partial<HandlerOptions> = {}) {
  const thawed: string[][] = [];
  const handler = createHandler({ agent: inventoryAgent({ thawed }), secret: SECRET, ...extra });
  const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
  const runId = started.body.runId as string;
  const answered = await send(handler, 'POST', `/runs/${runId}/answer`, {
    ...answer,
    snapshot: started.body.snapshot,
  });
  expect(answered.status).toBe(200);
  return { handler, thawed, runId, started, snapshot: answered.body.snapshot as string };
}

describe("replay: 'allow' (the default)", () => {
  it('lets an older snapshot resume its run again: the approved tool runs twice', async () => {
    const { handler, thawed, runId, snapshot } = await pausedAtApproval();
    for (let time = 0; time < 2; time++) {
      const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
      expect(approved.body.status).toBe('completed');
    }
    expect(thawed).toEqual([['K562'], ['K562']]);
  });
});

describe("replay: 'reject'", () => {
  const rejecting = (store: ReplayStore = memoryReplayStore()) => ({
    replay: 'reject' as const,
    replayStore: store,
  });

  it('lets each snapshot resume once: a second use is a 409 and the tool ran once', async () => {
    const { handler, thawed, runId, started, snapshot } = await pausedAtApproval(rejecting());
    const first = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
    expect(first.body.status).toBe('completed');
    const again = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
    expect(again).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(again.body.detail).toMatch(/already used/);
    const older = await send(handler, 'POST', `/runs/${runId}/answer`, {
      ...answer,
      snapshot: started.body.snapshot,
    });
    expect(older.status).toBe(409);
    expect(thawed).toEqual([['K562']]);
    const next = await send(handler, 'POST', `/runs/${runId}/messages`, {
      input: 'Thanks',
      snapshot: first.body.snapshot,
    });
    expect(next.body.output).toBe('You are welcome.');
  });

  it('refuses every re-encoding of a used encrypted snapshot: the approved tool ran once', async () => {
    const { handler, thawed, runId, snapshot } = await pausedAtApproval({ ...rejecting(), encrypt: true });
    const first = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
    expect(first.body.status).toBe('completed');
    for (const respelled of respellings(snapshot)) {
      const again = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot: respelled });
      expect(again.status).not.toBe(200);
    }
    expect(thawed).toEqual([['K562']]);
  });

  it('lets exactly one of two concurrent uses of a snapshot through', async () => {
    const { handler, thawed, runId, snapshot } = await pausedAtApproval(rejecting());
    const results = await Promise.all(
      [1, 2].map(() => send(handler, 'POST', `/runs/${runId}/approve`, { snapshot })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect(thawed).toEqual([['K562']]);
  });

  it('gives the snapshot back when the resume was refused before anything ran', async () => {
    const { handler, thawed, runId, snapshot } = await pausedAtApproval(rejecting());
    const wrongKind = await send(handler, 'POST', `/runs/${runId}/answer`, { ...answer, snapshot });
    expect(wrongKind).toMatchObject({ status: 409, body: { code: 'WRONG_KIND' } });
    const invalid = await send(handler, 'POST', `/runs/${runId}/approve`, {
      snapshot,
      editedInput: { cellLines: 'not a list' },
    });
    expect(invalid).toMatchObject({ status: 422, body: { code: 'ANSWER_INVALID' } });
    const unchanged = await send(handler, 'POST', `/runs/${runId}/retry`, { snapshot });
    expect(unchanged.body.snapshot).toBe(snapshot);
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
    expect(approved.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
  });

  it('refuses a snapshot older than replayTtlMs, which it could no longer recognise', async () => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const { handler, runId, snapshot } = await pausedAtApproval({
      ...rejecting(),
      replayTtlMs: 60_000,
      now: () => clock,
    });
    clock = new Date('2030-01-01T00:02:00Z');
    const late = await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot });
    expect(late).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(late.body.detail).toMatch(/older than the handler's replayTtlMs/);
  });

  it('is refused at build without a replay store, with a store, or with a store but allow', () => {
    const agent = inventoryAgent();
    const builds = [
      () => createHandler({ agent, secret: SECRET, replay: 'reject' }),
      () =>
        createHandler({ agent, store: memoryStore(), replay: 'reject', replayStore: memoryReplayStore() }),
      () => createHandler({ agent, secret: SECRET, replayStore: memoryReplayStore() }),
      () => createHandler({ agent, secret: SECRET, replay: 'never' as 'reject' }),
    ];
    for (const build of builds) {
      expect(build).toThrow(TurnkitError);
      expect(build).toThrow(/replay/);
    }
  });
});

describe('memoryReplayStore', () => {
  it('claims a key once until its TTL passes, and gives it back on release', async () => {
    let now = 1_000;
    const store = memoryReplayStore({ now: () => now });
    expect(await store.claim('a', 100)).toBe(true);
    expect(await store.claim('a', 100)).toBe(false);
    expect(await store.claim('b', 100)).toBe(true);
    now += 101;
    expect(await store.claim('a', 100)).toBe(true);
    await store.release('a');
    expect(await store.claim('a', 100)).toBe(true);
  });
});

const redisUrl = serverUrl('TURNKIT_REDIS_URL', 'Redis');

describe.skipIf(!redisUrl)('redisReplayStore', () => {
  const client = redisUrl ? new Redis(redisUrl, { lazyConnect: true }) : undefined;
  const prefix = `turnkit-test:replay:${process.pid}:${Date.now()}:`;
  afterAll(async () => {
    if (!client) return;
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  });

  it('claims a key once across clients, expires it after its TTL, and releases it', async () => {
    const store = redisReplayStore(client!, { prefix });
    const second = client!.duplicate();
    const peer = redisReplayStore(second, { prefix });
    expect(await store.claim('k', 200)).toBe(true);
    expect(await peer.claim('k', 200)).toBe(false);
    expect(await client!.pttl(`${prefix}k`)).toBeGreaterThan(0);
    await store.release('k');
    expect(await peer.claim('k', 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.claim('k', 200)).toBe(true);
    second.disconnect();
  });

  it('rejects replays through the handler', async () => {
    const { handler, thawed, runId, snapshot } = await pausedAtApproval({
      replay: 'reject',
      replayStore: redisReplayStore(client!, { prefix }),
    });
    expect((await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot })).status).toBe(200);
    expect((await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot })).status).toBe(409);
    expect(thawed).toEqual([['K562']]);
  });
});
