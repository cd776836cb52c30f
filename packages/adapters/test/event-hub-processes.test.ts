/**
 * SSE across workers (DESIGN §17, issue 20), with real processes: three handler processes on
 * loopback (fixtures/events-server.ts) share a store and an event hub — PostgreSQL, and separately
 * Redis. A client on process 1 sees every event of the turns processes 2 and 3 play, in seq order;
 * a dropped stream resumes from `Last-Event-ID`, on any process, without gaps or duplicates;
 * another run's events never arrive; and a client that never reads is cut off by bytes (§13) on
 * every process while one that reads keeps up.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleEventsServer,
  type EventsServer,
  eventsBackend,
  startEventsServer,
} from './helpers/event-servers.js';
import { findServers } from './helpers/lease-stores.js';
import { readSse, type SseEvent } from './http-fixtures.js';

const servers = findServers();
const answer = { answers: { 'Cell lines': ['K562'] } };
/** Each process cuts off a client once this many bytes wait for it unread. */
const MAX_QUEUED_BYTES = 512 * 1024;
/** A reply of this many characters makes three events of about as many bytes (delta, message, output). */
const BIG_REPLY = 64 * 1024;

// biome-ignore lint/suspicious/noExplicitAny: run views are read as the JSON the server sent.
type View = any;

async function post(server: EventsServer, path: string, body: unknown): Promise<View> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const view = await response.json();
  expect(response.status, JSON.stringify(view)).toBeLessThan(300);
  return view;
}

/** A client reading a run's event stream as it comes (comments left out). */
function follow(server: EventsServer, runId: string, lastEventId?: string) {
  const abort = new AbortController();
  const events: SseEvent[] = [];
  const waits: { stop: (event: SseEvent) => boolean; resolve: () => void }[] = [];
  const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId };
  const done = (async () => {
    const response = await fetch(`${server.url}/runs/${runId}/events`, { headers, signal: abort.signal });
    expect(response.status).toBe(200);
    for await (const event of readSse(response.body!)) {
      if (event.event === 'comment') continue;
      events.push(event);
      for (const wait of waits.filter((each) => each.stop(event))) {
        waits.splice(waits.indexOf(wait), 1);
        wait.resolve();
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  return {
    events,
    /** Resolves at the first event (from now on, or already read) for which `stop` is true. */
    until: (stop: (event: SseEvent) => boolean) =>
      events.some(stop) ? Promise.resolve() : new Promise<void>((resolve) => waits.push({ stop, resolve })),
    async close() {
      abort.abort();
      await done;
    },
  };
}

/** A client that opens a run's event stream and then never reads; `drain()` reads it until it ends or is dropped. */
function neverReads(server: EventsServer, runId: string): Promise<{ drain(): Promise<number> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.url}/runs/${runId}/events`, (response) => {
      response.pause();
      resolve({
        drain: () =>
          new Promise((ended) => {
            let bytes = 0;
            response.on('data', (chunk: Buffer) => {
              bytes += chunk.byteLength;
            });
            // Cut off, the server drops the connection: the stream ends, or closes with an error.
            response.on('end', () => ended(bytes));
            response.on('close', () => ended(bytes));
            response.on('error', () => ended(bytes));
            response.resume();
          }),
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** The listeners each process's hub has for the run. */
const listenersOf = (processes: EventsServer[], runId: string) =>
  Promise.all(processes.map((server) => server.listeners(runId)));

/** Asks until the processes' listener counts are `expected` (subscriptions to a shared hub are async). */
async function settleListeners(processes: EventsServer[], runId: string, expected: number[]) {
  for (let polls = 0; ; polls++) {
    const counts = await listenersOf(processes, runId);
    if (counts.join() === expected.join() || polls >= 400) return counts;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const eventIds = (events: SseEvent[]) =>
  events.filter((event) => event.event !== 'state').map((event) => Number(event.id));
const range = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, index) => first + index);
const isFinalState = (lastSeq: number) => (event: SseEvent) =>
  event.event === 'state' && event.data.lastSeq === lastSeq;

let bundle: Awaited<ReturnType<typeof bundleEventsServer>>;
beforeAll(async () => {
  bundle = await bundleEventsServer();
});
afterAll(async () => {
  await bundle?.remove();
});

for (const kind of ['postgres', 'redis'] as const) {
  describe.skipIf(servers.missing(kind))(`${kind}: three handler processes sharing one event hub`, () => {
    let processes: EventsServer[] = [];
    let drop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      const backend = await eventsBackend(kind, servers.urls[kind]!);
      drop = backend.drop;
      processes = await Promise.all(
        [1, 2, 3].map(() =>
          startEventsServer(bundle.path, { ...backend.config, maxQueuedBytes: MAX_QUEUED_BYTES }),
        ),
      );
    });
    afterAll(async () => {
      // Each process closes its hub and exits 0 only if its hub and handler reported no error.
      expect(await Promise.all(processes.map((server) => server.stop()))).toEqual(processes.map(() => 0));
      await drop();
    });

    it('a client on process 1 sees every event of the turns processes 2 and 3 play, in seq order, and none of another run', async () => {
      const [one, two, three] = processes as [EventsServer, EventsServer, EventsServer];
      const run = await post(two, '/runs', { input: 'Thaw one' });
      const other = await post(three, '/runs', { input: 'Thaw one' });
      const stream = follow(one, run.runId);
      await stream.until(() => true);
      const [answered, otherAnswered] = await Promise.all([
        post(three, `/runs/${run.runId}/answer`, answer),
        post(two, `/runs/${other.runId}/answer`, answer),
      ]);
      await Promise.all([
        post(two, `/runs/${run.runId}/approve`, { id: answered.pending[0].id }),
        post(three, `/runs/${other.runId}/approve`, { id: otherAnswered.pending[0].id }),
      ]);
      const last = await post(three, `/runs/${run.runId}/messages`, { input: 'and one HeLa' });
      await post(two, `/runs/${other.runId}/messages`, { input: 'and one HeLa' });
      await stream.until(isFinalState(last.lastSeq));
      await stream.close();

      const [first, ...rest] = stream.events;
      expect(first).toMatchObject({
        event: 'state',
        id: String(run.lastSeq),
        data: { status: 'needs_input' },
      });
      expect(eventIds(rest)).toEqual(range(run.lastSeq + 1, last.lastSeq));
      expect(rest.filter((event) => event.event === 'state').map((event) => event.data.status)).toEqual([
        'needs_input',
        'completed',
        'completed',
      ]);
      expect(stream.events.every((event) => event.data.runId === run.runId)).toBe(true);
      for (const name of ['interaction_resolved', 'model_delta', 'tool_finished', 'turn_completed']) {
        expect(rest.map((event) => event.event)).toContain(name);
      }
    });

    it('a dropped stream resumes from Last-Event-ID on another process, without gaps or duplicates', async () => {
      const [one, two, three] = processes as [EventsServer, EventsServer, EventsServer];
      const run = await post(two, '/runs', { input: 'Thaw one' });
      const first = follow(one, run.runId);
      await first.until(() => true);
      const answered = await post(three, `/runs/${run.runId}/answer`, answer);
      await first.until((event) => Number(event.id) === run.lastSeq + 3);
      await first.close();
      const droppedAt = first.events.at(-1)!.id!;
      const approved = await post(two, `/runs/${run.runId}/approve`, { id: answered.pending[0].id });
      const last = await post(three, `/runs/${run.runId}/messages`, { input: 'and one HeLa' });

      const second = follow(three, run.runId, droppedAt);
      await second.until(isFinalState(last.lastSeq));
      await second.close();
      expect([...eventIds(first.events), ...eventIds(second.events)]).toEqual(
        range(run.lastSeq + 1, last.lastSeq),
      );
      expect(
        second.events.filter((event) => event.event === 'state').map((event) => event.data.lastSeq),
      ).toEqual([answered.lastSeq, approved.lastSeq, last.lastSeq]);

      // From the end of a turn, on yet another process: the state of that turn again, then what followed.
      const third = follow(two, run.runId, String(approved.lastSeq));
      await third.until(isFinalState(last.lastSeq));
      await third.close();
      expect(third.events[0]).toMatchObject({ event: 'state', id: String(approved.lastSeq) });
      expect(eventIds(third.events)).toEqual(range(approved.lastSeq + 1, last.lastSeq));
    });

    it('a client that never reads is cut off by bytes on every process; one that reads gets every event', async () => {
      const [one, two, three] = processes as [EventsServer, EventsServer, EventsServer];
      const run = await post(two, '/runs', { input: 'Thaw one' });
      const slow = await Promise.all(processes.map((server) => neverReads(server, run.runId)));
      const reader = follow(one, run.runId);
      expect(await settleListeners(processes, run.runId, [2, 1, 1])).toEqual([2, 1, 1]);

      let last = run;
      let counts: number[] = [];
      for (let turn = 0; counts.join() !== [1, 0, 0].join(); turn++) {
        // Bounded: each turn publishes about 200 KB; every process cuts its client off well before.
        expect(turn, `listeners still ${counts.join()}`).toBeLessThan(60);
        last = await post(turn % 2 === 0 ? three : two, `/runs/${run.runId}/messages`, {
          input: `big ${BIG_REPLY}`,
        });
        await reader.until(isFinalState(last.lastSeq));
        counts = await listenersOf(processes, run.runId);
      }
      await reader.close();
      expect(eventIds(reader.events.slice(1))).toEqual(range(run.lastSeq + 1, last.lastSeq));
      // What each cut-off client got is finite: its connection was dropped, so reading it ends.
      const received = await Promise.all(slow.map((client) => client.drain()));
      expect(received).toHaveLength(slow.length);
    });
  });
}
