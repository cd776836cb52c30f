import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  createSessions,
  memoryStore,
  parseSnapshot,
  type SnapshotStore,
  StateError,
} from '../src/index.js';
import { ask, cellLineQuestion, makeAgent, toolResults } from './helpers.js';

const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };

/** A store whose writes can be held until released, to interleave two requests. */
function countingStore(inner: SnapshotStore = memoryStore()) {
  const counts = { get: 0, put: 0 };
  const store: SnapshotStore = {
    get: (runId) => {
      counts.get++;
      return inner.get(runId);
    },
    put: (runId, snapshot, opts) => {
      counts.put++;
      return inner.put(runId, snapshot, opts);
    },
    renew: (runId, opts) => inner.renew(runId, opts),
    listExpired: (before, limit) => inner.listExpired(before, limit),
    delete: (runId) => inner.delete(runId),
  };
  return { store, counts };
}

describe('createSessions', () => {
  it('starts, pauses, answers and completes a run kept in the store, with one read and four writes per resume (claim, the step results, the started marker of the tool batch, the result)', async () => {
    const log: string[] = [];
    const agent = makeAgent(
      [
        { toolCalls: [ask([authQuestion])] },
        { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] },
        'done',
      ],
      {},
      log,
    );
    const { store, counts } = countingStore();
    const sessions = createSessions({ agent, store });
    const r1 = await sessions.start('go');
    expect(r1.status).toBe('needs_input');
    // The first start of these sessions is claimed: they know no store clock yet (issue 35).
    expect(r1.version).toBe(2);
    counts.get = 0;
    counts.put = 0;
    const r2 = await sessions.answer(r1.runId, { answers: 'JWT' });
    expect(r2.status).toBe('completed');
    // The started marker (tools in doubt, DESIGN §21) is one head write per tool batch.
    expect(counts).toEqual({ get: 1, put: 4 });
    expect(r2.version).toBe(6);
    const stored = await sessions.get(r1.runId);
    expect(stored.status).toBe('completed');
    expect(stored.snapshot).toBe(r2.snapshot);
    expect(log).toEqual(['K562']);
  });

  it('writes a new run once, when its turn rests; a run id the caller chose is claimed first (issue 35)', async () => {
    const { store, counts } = countingStore();
    const sessions = createSessions({ agent: makeAgent(['hi']), store });
    // The first start is claimed first: its write tells the sessions the store's clock.
    expect((await sessions.start('warm up')).version).toBe(2);
    counts.put = 0;
    const done = await sessions.start('hello');
    expect(done.status).toBe('completed');
    expect(counts).toEqual({ get: 0, put: 1 });
    expect((await store.get(done.runId))?.lease).toBeNull();
    counts.put = 0;
    const given = await sessions.start({ input: 'hello', runId: 'run_given_35' });
    expect(given.status).toBe('completed');
    expect(counts.put).toBe(2);
  });

  it('refuses a new run whose id is stored already, at its insert, with nothing stored over it (issue 35)', async () => {
    // Row layout 1, so every write is a `put`.
    const { getParts: _getParts, putParts: _putParts, getHead: _getHead, ...inner } = memoryStore();
    let inserts = 0;
    // Every id after the first is taken: the insert (expected version null) is what refuses it.
    const taken: SnapshotStore = {
      ...inner,
      put: async (runId, snapshot, opts) => {
        if (opts.expectedVersion === null && ++inserts > 1)
          await inner.put(runId, 'theirs', { expectedVersion: null });
        return inner.put(runId, snapshot, opts);
      },
    };
    const sessions = createSessions({ agent: makeAgent(['hi']), store: taken });
    // The first start is claimed; the second is refused at its one insert, when its turn rests.
    expect((await sessions.start('warm up')).status).toBe('completed');
    const error = await sessions.start('hello').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/already exists.*new id/);
  });

  it('stores nothing of a new run until its turn rests: a stop meanwhile finds no run (issue 35)', async () => {
    const { store } = countingStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calling: () => void = () => undefined;
    const called = new Promise<void>((resolve) => {
      calling = resolve;
    });
    let calls = 0;
    // The script plays step 1 on every start: the second start's model call waits at the gate.
    const agent = makeAgent([
      async () => {
        if (++calls === 1) return 'first';
        calling();
        await gate;
        return 'hi';
      },
    ]);
    const sessions = createSessions({ agent, store });
    await sessions.start('warm up');
    const runIds: string[] = [];
    const playing = sessions.start('hello', { onEvent: (event) => runIds.push(event.runId) });
    await called;
    expect(await store.get(runIds[0]!)).toBeNull();
    const stop = await sessions.stop(runIds[0]!).catch((caught: unknown) => caught);
    expect((stop as StateError).code).toBe('RUN_NOT_FOUND');
    release();
    const done = await playing;
    expect(done.status).toBe('completed');
    expect((await store.get(done.runId))?.version).toBe(1);
  });

  it('throws RUN_NOT_FOUND for an unknown run id', async () => {
    const sessions = createSessions({ agent: makeAgent([]), store: memoryStore() });
    const error = await sessions.get('run_missing').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).code).toBe('RUN_NOT_FOUND');
  });

  it('lets two concurrent answers continue the run exactly once', async () => {
    let modelCallsAfterAnswer = 0;
    const log: string[] = [];
    const agent = makeAgent(
      [
        { toolCalls: [ask([authQuestion])] },
        () => {
          modelCallsAfterAnswer++;
          return { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] };
        },
        'done',
      ],
      {},
      log,
    );
    const sessions = createSessions({ agent, store: memoryStore() });
    const r1 = await sessions.start('go');
    const outcomes = await Promise.allSettled([
      sessions.answer(r1.runId, { answers: 'JWT' }),
      sessions.answer(r1.runId, { answers: 'OAuth' }),
    ]);
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.filter((outcome) => outcome.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(ConflictError);
    expect(modelCallsAfterAnswer).toBe(1);
    expect(log).toEqual(['K562']);
  });

  it('treats a repeated identical answer as an idempotent read, in any equivalent form', async () => {
    const agent = makeAgent([{ toolCalls: [ask([authQuestion])] }, 'done']);
    const sessions = createSessions({ agent, store: memoryStore() });
    const r1 = await sessions.start('go');
    const r2 = await sessions.answer(r1.runId, { answers: 'JWT' });
    for (const same of [
      'JWT',
      ['JWT'],
      { Auth: { selected: ['JWT'] } },
      { 'Which auth method?': ['JWT'] },
      { 0: 'JWT' },
    ]) {
      const repeat = await sessions.answer(r1.runId, { answers: same as never });
      expect(repeat.status).toBe('completed');
      expect(repeat.version).toBe(r2.version);
    }
    const withId = await sessions.answer(r1.runId, { id: r1.pending[0]!.id, answers: 'JWT' });
    expect(withId.snapshot).toBe(r2.snapshot);
    await expect(
      sessions.answer(r1.runId, { id: r1.pending[0]!.id, answers: 'OAuth' }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('treats a repeat without id as idempotent even when an interaction of another kind is now pending', async () => {
    const agent = makeAgent([
      { toolCalls: [ask([authQuestion])] },
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
      'done',
    ]);
    const sessions = createSessions({ agent, store: memoryStore() });
    const r1 = await sessions.start('go');
    const r2 = await sessions.answer(r1.runId, { answers: 'JWT' });
    expect(r2.pendingQuestion?.kind).toBe('approval');
    const repeat = await sessions.answer(r1.runId, { answers: 'JWT' });
    expect(repeat.version).toBe(r2.version);
    expect(repeat.pendingQuestion?.kind).toBe('approval');
    await expect(sessions.answer(r1.runId, { answers: 'OAuth' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('a repeated answer while the winner is still at work reports running; a different one conflicts', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = makeAgent([
      { toolCalls: [ask([authQuestion])] },
      async () => {
        await gate;
        return 'done';
      },
    ]);
    const sessions = createSessions({ agent, store: memoryStore() });
    const r1 = await sessions.start('go');
    const winner = sessions.answer(r1.runId, { answers: 'JWT' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const repeat = await sessions.answer(r1.runId, { answers: 'JWT' });
    expect(repeat.status).toBe('running');
    expect((await sessions.get(r1.runId)).status).toBe('running');
    await expect(sessions.answer(r1.runId, { answers: 'OAuth' })).rejects.toBeInstanceOf(ConflictError);
    await expect(sessions.send(r1.runId, 'hello')).rejects.toBeInstanceOf(ConflictError);
    release();
    expect((await winner).status).toBe('completed');
  });

  it('re-claims a run whose worker died after its lease expired, and redoes the turn from the recorded answer', async () => {
    const keys: string[] = [];
    const { defineTool } = await import('../src/index.js');
    const { z } = await import('zod');
    const charge = defineTool({
      name: 'charge',
      description: 'c',
      input: z.object({}),
      execute: (_input, ctx) => {
        keys.push(ctx.idempotencyKey);
        return 'charged';
      },
    });
    const agent = makeAgent(
      [
        { toolCalls: [ask([authQuestion])] },
        { toolCalls: [{ id: 'pay', name: 'charge', arguments: {} }] },
        'done',
      ],
      {
        tools: [charge, (await import('../src/index.js')).askUserQuestion()],
      },
    );
    // The store's clock alone judges leases; the calls' `now` plays no part in it.
    let storeClock = Date.parse('2026-05-01T10:00:00Z');
    const store = memoryStore({ now: () => storeClock });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const sessions = createSessions({ agent, store, leaseMs: 1000 });
    const r1 = await sessions.start('go', { now: t0 });
    // A worker that claims the answer, runs the tool, and dies before writing anything more.
    let writes = 0;
    const dieOnSecondWrite = () => {
      writes++;
      if (writes >= 2) throw new Error('process died');
    };
    const dying: SnapshotStore = {
      ...store,
      put: async (runId, snapshot, opts) => {
        dieOnSecondWrite();
        return store.put(runId, snapshot, opts);
      },
      putParts: async (runId, write, opts) => {
        dieOnSecondWrite();
        return store.putParts!(runId, write, opts);
      },
    };
    await expect(
      createSessions({ agent, store: dying, leaseMs: 1000 }).answer(
        r1.runId,
        { answers: 'JWT' },
        { now: t0 },
      ),
    ).rejects.toThrow('process died');
    expect((await sessions.get(r1.runId, { now: t0 })).status).toBe('running');
    await expect(sessions.answer(r1.runId, { answers: 'OAuth' }, { now: t0 })).rejects.toBeInstanceOf(
      ConflictError,
    );
    // A call's clock far in the future does not make the dead worker's lease expire…
    const farFuture = new Date('2026-05-02T10:00:00Z');
    await expect(sessions.retry(r1.runId, { now: farFuture })).rejects.toBeInstanceOf(ConflictError);
    // …the store's clock does.
    storeClock += 5000;
    const recovered = await sessions.answer(r1.runId, { answers: 'JWT' }, { now: t0 });
    expect(recovered.status).toBe('completed');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(toolResults(recovered).pay).toBe('charged');
    expect(recovered.messages.filter((message) => message.role === 'tool')).toHaveLength(2);
  });

  it('sends the next user message and retries a failed run', async () => {
    let fail = true;
    const agent = makeAgent([
      'first',
      () => {
        if (fail) {
          fail = false;
          throw new Error('503');
        }
        return 'second';
      },
    ]);
    const sessions = createSessions({ agent, store: memoryStore() });
    const r1 = await sessions.start({ input: 'one', context: { user: 'u1' } });
    const r2 = await sessions.send(r1.runId, 'two');
    expect(r2.status).toBe('failed');
    const r3 = await sessions.retry(r1.runId);
    expect(r3.output).toBe('second');
    await expect(sessions.retry(r1.runId)).rejects.toMatchObject({ code: 'NOT_WAITING' });
  });

  it('stores the earliest expiry for sweepers', async () => {
    const { askUserQuestion } = await import('../src/index.js');
    const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'Assuming the parental line.'], {
      tools: [askUserQuestion({ timeoutMs: 1000 })],
    });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const r1 = await sessions.start('go', { now: t0 });
    expect(await store.listExpired!(new Date('2026-05-01T10:00:00.500Z'))).toEqual([]);
    const due = new Date('2026-05-01T10:00:02Z');
    expect(await store.listExpired!(due)).toEqual([r1.runId]);
    expect((await sessions.expire(r1.runId, { now: new Date('2026-05-01T10:00:00.500Z') })).status).toBe(
      'needs_input',
    );
    const swept = await sessions.expire(r1.runId, { now: due });
    expect(swept.status).toBe('completed');
    expect(swept.messages.find((message) => message.role === 'tool')?.content).toContain('question_timeout');
    expect(await store.listExpired!(due)).toEqual([]);
  });
});

describe('principals', () => {
  it('binds a new run to its principal and hides it from every other caller', async () => {
    const agent = makeAgent([{ toolCalls: [ask([authQuestion])] }, 'done']);
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const started = await sessions.start('go', { principal: 'user:ada' });
    expect(parseSnapshot((await store.get(started.runId))!.snapshot).principal).toBe('user:ada');
    for (const call of [
      () => sessions.get(started.runId, { principal: 'user:eve' }),
      () => sessions.answer(started.runId, { answers: 'JWT' }, { principal: 'user:eve' }),
      () => sessions.send(started.runId, 'hi', { principal: 'user:eve' }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    }
    expect((await sessions.get(started.runId, { principal: 'user:ada' })).status).toBe('needs_input');
    const done = await sessions.answer(started.runId, { answers: 'JWT' }, { principal: 'user:ada' });
    expect(done.status).toBe('completed');
    expect(parseSnapshot(done.snapshot).principal).toBe('user:ada');
  });
});

describe('sessions.sweep', () => {
  it('resolves every expired interaction the store lists and lets each run go on; nothing else is touched', async () => {
    const { askUserQuestion } = await import('../src/index.js');
    const agent = makeAgent([{ toolCalls: [ask([authQuestion])] }, 'Assumed JWT.'], {
      tools: [askUserQuestion({ timeoutMs: 60_000 })],
    });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const due = await sessions.start('first', { now: t0 });
    const notYet = await sessions.start('second', { now: new Date('2026-05-01T10:05:00Z') });
    const answered = await sessions.start('third', { now: t0 });
    await sessions.answer(answered.runId, { answers: 'JWT' }, { now: t0 });
    const at = new Date('2026-05-01T10:02:00Z');
    const events: string[] = [];
    const { swept, skipped } = await sessions.sweep({ now: at, onEvent: (event) => events.push(event.type) });
    expect(swept.map((run) => run.runId)).toEqual([due.runId]);
    expect(skipped).toEqual([]);
    expect(swept[0]!.status).toBe('completed');
    expect(swept[0]!.messages.find((message) => message.role === 'tool')?.content).toContain(
      'question_timeout',
    );
    expect(events).toContain('interaction_resolved');
    expect((await sessions.get(notYet.runId)).status).toBe('needs_input');
    expect((await sessions.sweep({ now: at })).swept).toEqual([]);
  });

  it('skips a run another worker holds, and reports it', async () => {
    const { askUserQuestion } = await import('../src/index.js');
    const agent = makeAgent([{ toolCalls: [ask([authQuestion])] }, 'Assumed JWT.'], {
      tools: [askUserQuestion({ timeoutMs: 1000 })],
    });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const t0 = new Date('2026-05-01T10:00:00Z');
    const started = await sessions.start('go', { now: t0 });
    const row = (await store.get(started.runId))!;
    await store.put(started.runId, row.snapshot, {
      expectedVersion: row.version,
      lease: { owner: 'busy-worker', ms: 60_000 },
      expiresAt: '2026-05-01T10:00:01.000Z',
    });
    const { swept, skipped } = await sessions.sweep({ now: new Date('2026-05-01T10:00:05Z') });
    expect(swept).toEqual([]);
    expect(skipped).toEqual([{ runId: started.runId, error: expect.objectContaining({ code: 'CONFLICT' }) }]);
  });
});
