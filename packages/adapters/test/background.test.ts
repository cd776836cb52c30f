/**
 * Background turns in one process (DESIGN §17, issue 21): `createHandler({ queue })` answers a
 * `Prefer: respond-async` request `202` once its turn is claimed and enqueued; `createWorker` plays
 * it and publishes to the hub the event streams read. A repeated request enqueues nothing twice, a
 * different decision is a conflict, a worker that closes finishes or hands back its turn, and a job
 * that keeps failing ends with the dead letters. The cross-process tests (two worker processes on
 * BullMQ, SIGKILL, SIGTERM, 1 000 turns) are in background-processes.test.ts.
 */
import { defineAgent, memoryStore, type SnapshotStore, StateError, type TurnkitError } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, createHandler, type HubMessage } from '../src/http/public.js';
import { prefersRespondAsync } from '../src/http/routes.js';
import { bullmqQueue } from '../src/queue/bullmq.js';
import { memoryQueue } from '../src/queue/memory.js';
import type { TurnJob, TurnQueue } from '../src/queue/types.js';
import { createWorker, type TurnWorker, type WorkerOptions } from '../src/queue/worker.js';
import { cellLineQuestion, inventoryAgent, send } from './http-fixtures.js';

const ASYNC = { prefer: 'respond-async' };

const workers: TurnWorker[] = [];
const queues: TurnQueue[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
  await Promise.all(queues.splice(0).map((queue) => queue.close()));
});

function setup(options: { delayMs?: number; queue?: TurnQueue } = {}) {
  const thawed: string[][] = [];
  const agent = inventoryAgent({ thawed, delayMs: options.delayMs ?? 0 });
  const store = memoryStore();
  const queue = options.queue ?? memoryQueue({ backoffMs: 10 });
  queues.push(queue);
  const eventHub = createEventHub();
  const handler = createHandler({ agent, store, queue, eventHub, leaseMs: 2_000 });
  const errors: unknown[] = [];
  const startWorker = (extra: Partial<WorkerOptions> = {}) => {
    const worker = createWorker({
      agent,
      store,
      queue,
      eventHub,
      leaseMs: 2_000,
      shutdownSignals: [],
      onError: (error) => errors.push(error),
      ...extra,
    });
    workers.push(worker);
    return worker;
  };
  /** Reads the run until it is no longer `running`. */
  const settledRun = async (runId: string) =>
    vi.waitFor(
      async () => {
        const read = await send(handler, 'GET', `/runs/${runId}`);
        if (read.body.status === 'running') throw new Error(`run ${runId} is still running`);
        return read.body;
      },
      { timeout: 10_000, interval: 20 },
    );
  return { agent, store, queue, eventHub, handler, thawed, errors, startWorker, settledRun };
}

describe('prefersRespondAsync', () => {
  it('reads the respond-async preference among others, in any case, with or without parameters', () => {
    expect(prefersRespondAsync('respond-async')).toBe(true);
    expect(prefersRespondAsync('return=minimal, Respond-Async; wait=10')).toBe(true);
    expect(prefersRespondAsync(' RESPOND-ASYNC ')).toBe(true);
    expect(prefersRespondAsync(undefined)).toBe(false);
    expect(prefersRespondAsync('')).toBe(false);
    expect(prefersRespondAsync('return=minimal')).toBe(false);
    expect(prefersRespondAsync('respond-asynchronously')).toBe(false);
    expect(prefersRespondAsync('wait=respond-async')).toBe(false);
  });
});

describe('createHandler({ queue }) with Prefer: respond-async', () => {
  it('answers 202 with the run id while running, then a worker plays the turn to its question', async () => {
    const { handler, startWorker, settledRun, eventHub } = setup();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    expect(started.status).toBe(202);
    expect(started.headers.get('preference-applied')).toBe('respond-async');
    const { runId } = started.body;
    expect(started.headers.get('location')).toBe(`/runs/${runId}`);
    expect(started.body).toMatchObject({ status: 'running', pending: [] });

    // Nothing plays before a worker runs: the run reads running.
    expect((await send(handler, 'GET', `/runs/${runId}`)).body.status).toBe('running');

    const heard: HubMessage[] = [];
    await eventHub.subscribe(runId, (message) => heard.push(message));
    startWorker();
    const run = await settledRun(runId);
    expect(run.status).toBe('needs_input');
    expect(run.pending[0].kind).toBe('question');
    expect(run.pending[0].payload.questions[0].question).toBe(cellLineQuestion.question);
    // The worker published the turn's events and its state to the hub the streams read.
    await vi.waitFor(() => expect(heard.map((message) => message.event)).toContain('state'));
    const types = heard.filter((m) => m.event !== 'state').map((m) => (m.data as { type: string }).type);
    expect(types).toContain('model_finished');
    expect(types).toContain('interaction_requested');
    const state = heard.find((message) => message.event === 'state')!.data as { status: string };
    expect(state.status).toBe('needs_input');
  });

  it('enqueues a repeated answer once, refuses a different one, and runs the tool once', async () => {
    const { handler, startWorker, settledRun, thawed } = setup();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' });
    expect(started.status).toBe(201);
    const { runId } = started.body;
    const answer = { answers: { 'Which cell lines should I thaw?': ['K562'] } };
    expect((await send(handler, 'POST', `/runs/${runId}/answer`, answer)).body.status).toBe('needs_input');

    const approve = await send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC);
    expect(approve.status).toBe(202);
    expect(approve.body.status).toBe('running');
    // A double click: the same decision reads the claimed run; nothing is enqueued again.
    const again = await send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC);
    expect(again.status).toBe(200);
    expect(again.headers.get('preference-applied')).toBeNull();
    expect(again.body).toMatchObject({ status: 'running', version: approve.body.version });
    const reject = await send(handler, 'POST', `/runs/${runId}/reject`, { rationale: 'Not today.' }, ASYNC);
    expect(reject.status).toBe(409);
    expect(reject.body.code).toBe('CONFLICT');

    startWorker({ concurrency: 3 });
    const run = await settledRun(runId);
    expect(run.status).toBe('completed');
    expect(run.output).toContain('K562');
    expect(thawed).toEqual([['K562']]);
  });

  it('lets a page on an allowed origin send Prefer and read Preference-Applied and Location', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      queue: memoryQueue(),
      cors: { origins: ['https://app.example'] },
    });
    const preflight = await handler(
      new Request('http://test.local/runs', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, prefer',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')?.split(',')).toContain('prefer');
    const started = await send(
      handler,
      'POST',
      '/runs',
      { input: 'Thaw vials' },
      {
        ...ASYNC,
        origin: 'https://app.example',
      },
    );
    expect(started.status).toBe(202);
    expect(started.headers.get('access-control-expose-headers')?.split(',')).toEqual([
      'location',
      'preference-applied',
    ]);
  });

  it('plays in the request without the preference, and ignores it without a queue', async () => {
    const { handler } = setup();
    const started = await send(
      handler,
      'POST',
      '/runs',
      { input: 'Thaw vials' },
      { prefer: 'return=minimal' },
    );
    expect(started.status).toBe(201);
    expect(started.body.status).toBe('needs_input');
    expect(started.headers.get('preference-applied')).toBeNull();

    const plain = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const direct = await send(plain, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    expect(direct.status).toBe(201);
    expect(direct.body.status).toBe('needs_input');
    expect(direct.headers.get('preference-applied')).toBeNull();
  });

  it('defers messages and retries too', async () => {
    const { handler, startWorker, settledRun } = setup();
    startWorker();
    const { runId } = (await send(handler, 'POST', '/runs', { input: 'Thaw vials' })).body;
    const answer = { answers: { 'Which cell lines should I thaw?': ['HeLa'] } };
    await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    await send(handler, 'POST', `/runs/${runId}/approve`, {});
    const message = await send(handler, 'POST', `/runs/${runId}/messages`, { input: 'Thanks!' }, ASYNC);
    expect(message.status).toBe(202);
    const run = await settledRun(runId);
    expect(run.status).toBe('completed');
    expect(run.output).toBe('You are welcome.');
  });

  it('refuses a queue without a store, and something that is not a queue, as CONFIG_INVALID', () => {
    const agent = inventoryAgent();
    const attempt = (options: object) => () => createHandler({ agent, ...options } as never);
    expect(attempt({ queue: memoryQueue() })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(attempt({ store: memoryStore(), queue: {} })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => createWorker({ agent } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() =>
      createWorker({ agent, store: memoryStore(), queue: memoryQueue(), graceMs: -1, shutdownSignals: [] }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
  it('plays the turn in the request when BullMQ cannot reach Redis, once enqueueTimeoutMs has passed', async () => {
    const reported: unknown[] = [];
    // Port 1: nothing listens; BullMQ alone would wait for Redis forever.
    const queue = bullmqQueue({ connection: { host: '127.0.0.1', port: 1 }, enqueueTimeoutMs: 200 });
    queues.push(queue);
    const handler = createHandler({
      agent: inventoryAgent({ thawed: [] }),
      store: memoryStore(),
      queue,
      onError: (error) => reported.push(error),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    expect(started.status).toBe(201);
    expect(started.body.status).toBe('needs_input');
    expect(reported).toEqual([expect.objectContaining({ code: 'QUEUE_UNAVAILABLE' })]);
  });
  it('plays the turn in the request when the queue refuses the job, as if the preference were not sent', async () => {
    const thawed: string[][] = [];
    const reported: unknown[] = [];
    const broken: TurnQueue = {
      enqueue: async () => {
        throw new Error('queue unreachable');
      },
      consume: () => ({ close: async () => {} }),
      deadLetters: async () => [],
      close: async () => {},
    };
    const eventHub = createEventHub();
    const handler = createHandler({
      agent: inventoryAgent({ thawed }),
      store: memoryStore(),
      queue: broken,
      eventHub,
      onError: (error) => reported.push(error),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    expect(started.status).toBe(201);
    expect(started.headers.get('preference-applied')).toBeNull();
    expect(started.body.status).toBe('needs_input');
    const { runId } = started.body;
    const answer = { answers: { 'Which cell lines should I thaw?': ['K562'] } };
    await send(handler, 'POST', `/runs/${runId}/answer`, answer);

    const approve = await send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC);
    expect(approve.status).toBe(200);
    expect(approve.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
    expect(reported).toEqual([
      expect.objectContaining({ message: 'queue unreachable' }),
      expect.objectContaining({ message: 'queue unreachable' }),
    ]);
    // One tool result per call, and every event on the hub once, in order (the events held
    // before the claim went out when the turn was played here).
    const run = await send(handler, 'GET', `/runs/${runId}`);
    const results = run.body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(results).toHaveLength(2);
    const seqs: number[] = [];
    await eventHub.subscribe(
      runId,
      (message) => {
        if (message.event !== 'state') seqs.push(Number(message.id));
      },
      { after: 0 },
    );
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(seqs.length).toBe(approve.body.lastSeq);
  });
});

describe('createWorker', () => {
  it('finishes the turn under way when it closes within graceMs', async () => {
    const { handler, startWorker, store } = setup({ delayMs: 300 });
    const worker = startWorker({ graceMs: 5_000 });
    const { runId } = (await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC)).body;
    await vi.waitFor(async () => expect((await store.get(runId))?.lease?.owner).toBeTruthy());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await worker.close();
    // close() resolved after the turn was played and written.
    expect((await send(handler, 'GET', `/runs/${runId}`)).body.status).toBe('needs_input');
  });

  it('hands the turn back after graceMs: no result written, and the next worker plays it', async () => {
    const { handler, startWorker, settledRun, errors } = setup({ delayMs: 600 });
    const first = startWorker({ graceMs: 50 });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    const { runId, version } = started.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.close();
    const handedBack = await send(handler, 'GET', `/runs/${runId}`);
    // Only the worker's claim was written (one version on): no result, no pending interaction.
    expect(handedBack.body).toMatchObject({ status: 'running', version: version + 1, pending: [] });

    startWorker();
    const run = await settledRun(runId);
    expect(run.status).toBe('needs_input');
    expect(run.pending[0].kind).toBe('question');
    // Handing back is not a failure the app must hear about twice: at most the lost claim.
    expect(errors.every((error) => (error as TurnkitError).code !== 'CONFIG_INVALID')).toBe(true);
  });

  it('completes a job whose run is not stored, reporting RUN_NOT_FOUND', async () => {
    const { queue, startWorker, errors } = setup();
    startWorker();
    await queue.enqueue({ runId: 'run_gone', owner: 'nobody', version: 1 });
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toBeInstanceOf(StateError);
    expect((errors[0] as StateError).code).toBe('RUN_NOT_FOUND');
    expect(await queue.deadLetters()).toEqual([]);
  });

  it('retries a job whose store fails, then keeps it as a dead letter; the run is played by its next request', async () => {
    const store = memoryStore();
    // The worker's connection to the store is down; the handler's is fine.
    const unreachable: SnapshotStore = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'get' && key !== 'getParts') return value;
        return async () => {
          throw new Error('store unreachable');
        };
      },
    });
    const thawed: string[][] = [];
    const agent = inventoryAgent({ thawed });
    const queue = memoryQueue({ attempts: 3, backoffMs: 5 });
    queues.push(queue);
    const handler = createHandler({ agent, store, queue, leaseMs: 200 });
    const failures: Array<[unknown, TurnJob | undefined]> = [];
    workers.push(
      createWorker({
        agent,
        store: unreachable,
        queue,
        leaseMs: 200,
        shutdownSignals: [],
        onError: (error, job) => failures.push([error, job]),
      }),
    );
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw vials' }, ASYNC);
    expect(started.status).toBe(202);
    await vi.waitFor(async () => expect(await queue.deadLetters()).toHaveLength(1), { timeout: 5_000 });
    const [dead] = await queue.deadLetters();
    expect(dead).toMatchObject({
      job: { runId: started.body.runId },
      attempts: 3,
      reason: 'store unreachable',
    });
    expect(failures.filter(([, job]) => job?.runId === started.body.runId)).toHaveLength(3);
    // Its lease lapsed; the run's next request takes the turn over and plays it.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const answer = { answers: { 'Which cell lines should I thaw?': ['K562'] } };
    const answered = await send(handler, 'POST', `/runs/${started.body.runId}/answer`, answer);
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('needs_input');
    expect(answered.body.pending[0].kind).toBe('approval');
  });
});

describe('createWorker with a one-step agent', () => {
  it('plays a turn that completes at once, with the default worker options', async () => {
    const agent = defineAgent({
      name: 'echo',
      instructions: 'Say hi.',
      model: scriptedModel(['hi']),
    });
    const store = memoryStore();
    const queue = memoryQueue();
    queues.push(queue);
    const handler = createHandler({ agent, store, queue });
    workers.push(createWorker({ agent, store, queue, shutdownSignals: [] }));
    const started = await send(handler, 'POST', '/runs', { input: 'hello' }, ASYNC);
    expect(started.status).toBe(202);
    await vi.waitFor(async () =>
      expect((await send(handler, 'GET', `/runs/${started.body.runId}`)).body).toMatchObject({
        status: 'completed',
        output: 'hi',
      }),
    );
  });
});
