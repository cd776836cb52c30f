/**
 * Question expiry judged on the store's clock (issue 26, low), as leases are: workers whose clocks
 * are 5 minutes off neither time a question out early nor accept an answer late, a sweeper on a
 * skewed host lists and expires what the store says expired, and `TurnOptions.now` still overrides.
 * The store's clock is a memory store's injectable one; a worker's is the faked system clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { askUserQuestion, createSessions, memoryStore, type TurnResult } from '../src/index.js';
import { ask, makeAgent } from './helpers.js';

const question = {
  question: 'Which auth method?',
  header: 'Auth',
  options: [
    { label: 'JWT', description: 'Tokens' },
    { label: 'OAuth', description: 'Delegated' },
  ],
};
const MINUTE = 60_000;
const T0 = Date.parse('2026-05-01T10:00:00Z');

function setup() {
  let storeTime = T0;
  const store = memoryStore({ now: () => storeTime });
  const agent = makeAgent([{ toolCalls: [ask([question])] }, 'Done.'], {
    tools: [askUserQuestion({ timeoutMs: MINUTE })],
  });
  const sessions = createSessions({ agent, store });
  vi.useFakeTimers({ toFake: ['Date'] });
  return {
    store,
    sessions,
    /** Moves the store's clock. */
    storeAt: (ms: number) => {
      storeTime = ms;
    },
    /** Sets this worker's clock `skew` ms off the store's. */
    workerSkew: (skew: number) => vi.setSystemTime(storeTime + skew),
  };
}

const timedOut = (result: TurnResult) =>
  result.messages.some((message) => message.role === 'tool' && message.content.includes('question_timeout'));

afterEach(() => {
  vi.useRealTimers();
});

describe('question expiry on the store clock', () => {
  it('a question asked by a worker 5 min ahead expires a minute after the store says it was asked', async () => {
    const { sessions, workerSkew } = setup();
    workerSkew(5 * MINUTE);
    const started = await sessions.start('go');
    expect(started.pendingQuestion?.expiresAt).toBe(new Date(T0 + MINUTE).toISOString());
  });

  it("stamps a claimed turn's events on the store clock, as its interactions", async () => {
    const { sessions, workerSkew } = setup();
    const started = await sessions.start('go');
    workerSkew(5 * MINUTE);
    const answered = await sessions.answer(started.runId, { answers: 'JWT' });
    expect(answered.status).toBe('completed');
    expect(answered.events.length).toBeGreaterThan(0);
    // The worker's own clock reads 10:05; the store's, which the claim saw, 10:00.
    expect(new Set(answered.events.map((event) => event.at))).toEqual(new Set([new Date(T0).toISOString()]));
  });

  it('a new run started without a claim asks on the store clock its sessions saw last (issue 35)', async () => {
    const { store, sessions, workerSkew } = setup();
    workerSkew(5 * MINUTE);
    await sessions.start('go');
    const second = await sessions.start('go');
    // Written once (no claim), yet timed as the store says.
    expect((await store.get(second.runId))?.version).toBe(1);
    expect(second.pendingQuestion?.expiresAt).toBe(new Date(T0 + MINUTE).toISOString());
  });

  it('a worker 5 min ahead does not time out a question the store says is still open', async () => {
    const { sessions, workerSkew, storeAt } = setup();
    workerSkew(0);
    const started = await sessions.start('go');
    storeAt(T0 + 30_000);
    workerSkew(5 * MINUTE);
    const answered = await sessions.answer(started.runId, { answers: 'JWT' });
    expect(answered.status).toBe('completed');
    expect(timedOut(answered)).toBe(false);
  });

  it('a worker 5 min behind does not accept an answer the store says came too late', async () => {
    const { sessions, workerSkew, storeAt } = setup();
    workerSkew(0);
    const started = await sessions.start('go');
    storeAt(T0 + 2 * MINUTE);
    workerSkew(-5 * MINUTE);
    const late = await sessions.answer(started.runId, { answers: 'JWT' });
    expect(timedOut(late)).toBe(true);
  });

  it('a sweeper 5 min ahead lists and expires only what the store says expired', async () => {
    const { store, sessions, workerSkew, storeAt } = setup();
    workerSkew(0);
    const started = await sessions.start('go');
    workerSkew(5 * MINUTE);
    expect(await store.listExpired('now')).toEqual([]);
    expect((await sessions.sweep()).swept).toEqual([]);
    expect((await sessions.get(started.runId)).status).toBe('needs_input');
    storeAt(T0 + 2 * MINUTE);
    workerSkew(-5 * MINUTE);
    expect(await store.listExpired('now')).toEqual([started.runId]);
    const { swept } = await sessions.sweep();
    expect(swept.map((run) => run.runId)).toEqual([started.runId]);
    expect(timedOut(swept[0]!)).toBe(true);
  });

  it("the caller's now still decides when given", async () => {
    const { sessions, workerSkew } = setup();
    workerSkew(0);
    const started = await sessions.start('go');
    const late = await sessions.answer(started.runId, { answers: 'JWT' }, { now: new Date(T0 + 2 * MINUTE) });
    expect(timedOut(late)).toBe(true);
  });
});

describe('a store written before listExpired took "now"', () => {
  it('is swept with the host clock', async () => {
    const inner = memoryStore();
    const asked: string[] = [];
    const older = {
      ...inner,
      listExpired: (before: Date | 'now', limit?: number) => {
        asked.push(typeof before === 'string' ? before : 'date');
        // As such a store does: it reads `before` as a Date.
        return inner.listExpired(new Date((before as Date).getTime()), limit);
      },
    };
    const sessions = createSessions({ agent: makeAgent(['Hi.']), store: older });
    expect((await sessions.sweep()).swept).toEqual([]);
    expect(asked).toEqual(['now', 'date']);
  });
});
