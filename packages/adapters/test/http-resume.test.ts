/**
 * `GET /runs/:id/events` with `Last-Event-ID` (DESIGN §17) on the in-process hub: a stream that
 * drops and reconnects gets every event it missed, once, in seq order, and the states of the turns
 * played meanwhile; when the hub no longer holds its last event, it starts from the current state.
 * And a request that loses the race to claim a run never shows its events.
 */
import { type AgentEvent, memoryStore, type SnapshotStore } from '@turnkit/core';
import type { PutOptions } from '@turnkit/core/store';
import { describe, expect, it } from 'vitest';
import { createEventHub, createHandler } from '../src/http/public.js';
import { inventoryAgent, jsonRequest, readSse, type SseEvent, send } from './http-fixtures.js';

const answer = { answers: { 'Cell lines': ['K562'] } };

/** Opens the run's event stream (with `Last-Event-ID` when given). */
async function open(handler: (request: Request) => Promise<Response>, runId: string, lastEventId?: string) {
  const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId };
  const response = await handler(jsonRequest('GET', `/runs/${runId}/events`, undefined, headers));
  expect(response.status).toBe(200);
  return readSse(response.body!);
}

/** Reads events (comments left out) until `stop` says so; the stream stays open. */
async function readUntil(events: AsyncGenerator<SseEvent>, stop: (event: SseEvent) => boolean) {
  const read: SseEvent[] = [];
  for (;;) {
    const { value, done } = await events.next();
    if (done) return read;
    if (value.event === 'comment') continue;
    read.push(value);
    if (stop(value)) return read;
  }
}

const idsOf = (events: SseEvent[]) =>
  events.filter((event) => event.event !== 'state').map((event) => Number(event.id));
const range = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, index) => first + index);

describe('event streams that reconnect with Last-Event-ID', () => {
  it('start with the run’s state, whose id is the run’s seq, then its events after it', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const events = await open(handler, started.body.runId);
    const [first] = await readUntil(events, () => true);
    expect(first).toMatchObject({ event: 'state', id: String(started.body.lastSeq) });
    await send(handler, 'POST', `/runs/${started.body.runId}/answer`, answer);
    const next = await readUntil(events, (event) => event.event === 'state');
    await events.return(undefined);
    expect(idsOf(next)).toEqual(range(started.body.lastSeq + 1, Number(next.at(-1)!.id)));
    expect(next.at(-1)!.data).toMatchObject({ status: 'needs_input', pending: [{ kind: 'approval' }] });
  });

  it('resume after the last event they got: every event missed, once and in order, with the states of turns played meanwhile', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const runId = started.body.runId;
    const first = await open(handler, runId);
    const answered = send(handler, 'POST', `/runs/${runId}/answer`, answer);
    // Dropped in the middle of the turn, three events after the state.
    const before = await readUntil(first, (event) => Number(event.id) === started.body.lastSeq + 3);
    await first.return(undefined);
    const approval = (await answered).body.pending[0];
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { id: approval.id });
    expect(approved.body.status).toBe('completed');

    const second = await open(handler, runId, before.at(-1)!.id);
    const after = await readUntil(
      second,
      (event) => event.event === 'state' && event.data.status === 'completed',
    );
    await second.return(undefined);
    const ids = [...idsOf(before), ...idsOf(after)];
    expect(ids).toEqual(range(started.body.lastSeq + 1, approved.body.lastSeq));
    expect(after.filter((event) => event.event === 'state').map((event) => event.data.status)).toEqual([
      'needs_input',
      'completed',
    ]);
    expect(after.map((event) => event.event)).toContain('turn_completed');
  });

  it('start from the current state when the hub no longer holds their last event', async () => {
    const hub = createEventHub({ maxLength: 2 });
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), eventHub: hub });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const runId = started.body.runId;
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    const events = await open(handler, runId, '1');
    const [first] = await readUntil(events, () => true);
    expect(first).toMatchObject({ event: 'state', id: String(answered.body.lastSeq) });
    expect(first!.data.pending[0].kind).toBe('approval');
    await send(handler, 'POST', `/runs/${runId}/approve`, { id: answered.body.pending[0].id });
    const next = await readUntil(events, (event) => event.event === 'state');
    await events.return(undefined);
    expect(idsOf(next)[0]).toBe(answered.body.lastSeq + 1);
  });

  it('refuse a Last-Event-ID that is not a seq', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    for (const id of ['abc', '-1', '1.5', '01']) {
      const response = await handler(
        jsonRequest('GET', `/runs/${started.body.runId}/events`, undefined, { 'last-event-id': id }),
      );
      expect(response.status, id).toBe(400);
      expect((await response.json()).code).toBe('BAD_REQUEST');
    }
  });
});

/**
 * A memory store where, once armed, the first claim waits until a second claim is written: the
 * request that claims first (and emitted its events first) loses the race.
 */
function firstClaimLoses(): { store: SnapshotStore; arm(): void } {
  const inner = memoryStore();
  let armed = false;
  let release: (() => void) | undefined;
  const gate = async <T>(options: PutOptions, write: () => Promise<T>): Promise<T> => {
    if (!armed || !options.lease?.ms) return write();
    if (!release) {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return write();
    }
    armed = false;
    try {
      return await write();
    } finally {
      release();
    }
  };
  const store: SnapshotStore = {
    ...inner,
    put: (runId, snapshot, options) => gate(options, () => inner.put(runId, snapshot, options)),
  };
  if (inner.putParts) {
    const putParts = inner.putParts.bind(inner);
    store.putParts = (runId, write, options) => gate(options, () => putParts(runId, write, options));
  }
  return { store, arm: () => (armed = true) };
}

describe('a request that loses the race to claim a run', () => {
  it('shows none of its events on the stream, though it emitted them first', async () => {
    const emitted: AgentEvent[] = [];
    const { store, arm } = firstClaimLoses();
    const handler = createHandler({
      agent: inventoryAgent(),
      store,
      onEvent: (event) => emitted.push(event),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const runId = started.body.runId;
    const events = await open(handler, runId);
    await readUntil(events, () => true);
    emitted.length = 0;
    arm();
    const lines = ['K562', 'HeLa'];
    const responses = await Promise.all(
      lines.map((line) =>
        send(handler, 'POST', `/runs/${runId}/answer`, { answers: { 'Cell lines': [line] } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect([...statuses].sort()).toEqual([200, 409]);
    const winner = statuses.indexOf(200);
    // Both requests applied their answer before claiming, the loser first (onEvent saw both)…
    const applied = emitted.filter((event) => event.type === 'interaction_resolved');
    expect(applied.map((event) => event.seq)).toEqual([started.body.lastSeq + 2, started.body.lastSeq + 2]);
    expect(applied[0]!.result).toContain(lines[1 - winner]);
    const streamed = await readUntil(events, (event) => event.event === 'state');
    await events.return(undefined);
    // …but the stream shows only the winner's.
    const resolved = streamed.filter((event) => event.event === 'interaction_resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data.result).toContain(lines[winner]);
    expect(idsOf(streamed)).toEqual(range(started.body.lastSeq + 1, responses[winner]!.body.lastSeq));
  });
});
