import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, type EventHub, type HubMessage } from '../src/events/hub.js';
import { DEFAULT_MAX_QUEUED_BYTES, formatSse, sseResponse } from '../src/http/sse.js';
import { readSse, type SseEvent } from './http-fixtures.js';

function openStream(options: { heartbeatMs?: number; maxQueuedBytes?: number; hub?: EventHub } = {}) {
  const hub = options.hub ?? createEventHub();
  const abort = new AbortController();
  const request = new Request('http://test.local/runs/run_a/events', { signal: abort.signal });
  const response = sseResponse(request, {
    hub,
    runId: 'run_a',
    initial: { event: 'state', data: { runId: 'run_a' } },
    heartbeatMs: options.heartbeatMs ?? 60_000,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
  });
  return { hub, abort, response };
}

async function take(events: AsyncGenerator<SseEvent>, count: number): Promise<SseEvent[]> {
  const taken: SseEvent[] = [];
  while (taken.length < count) {
    const next = await events.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('sseResponse', () => {
  it('sends the current state first, then the run’s live events, with heartbeats', async () => {
    const { hub, response } = openStream({ heartbeatMs: 20 });
    const events = readSse(response.body!);
    expect(await take(events, 1)).toEqual([{ event: 'state', id: undefined, data: { runId: 'run_a' } }]);
    hub.publish('run_b', { event: 'model_delta', id: '1', data: { text: 'not mine' } });
    hub.publish('run_a', { event: 'model_delta', id: '7', data: { text: 'line one\nline two' } });
    const [delta] = await take(events, 1);
    expect(delta).toEqual({ event: 'model_delta', id: '7', data: { text: 'line one\nline two' } });
    const [ping] = await take(events, 1);
    expect(ping).toEqual({ event: 'comment', data: 'ping' });
    await events.return(undefined);
  });

  it('unsubscribes and stops its timer when the client cancels the stream', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { hub, response } = openStream();
    expect(hub.listeners('run_a')).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await response.body!.cancel();
    expect(hub.listeners('run_a')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    hub.publish('run_a', { event: 'x', data: {} });
  });

  it('unsubscribes, stops its timer and ends the stream when the request is aborted', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { hub, abort, response } = openStream();
    abort.abort();
    expect(hub.listeners('run_a')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const events = await take(readSse(response.body!), 10);
    expect(events.map((event) => event.event)).toEqual(['state']);
  });

  it('answers HEAD with the headers only: no subscription, no timer', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const hub = createEventHub();
    const response = sseResponse(new Request('http://test.local/runs/run_a/events', { method: 'HEAD' }), {
      hub,
      runId: 'run_a',
      initial: { event: 'state', data: {} },
      heartbeatMs: 1000,
      maxQueuedBytes: 1024,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.body).toBeNull();
    expect(hub.listeners('run_a')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not cut a slow client off by message count: 5000 small events stay queued', async () => {
    const { hub, response } = openStream();
    for (let index = 0; index < 5000; index++) {
      hub.publish('run_a', { event: 'model_delta', id: String(index), data: { text: 'x' } });
    }
    expect(hub.listeners('run_a')).toBe(1);
    const events = readSse(response.body!);
    expect((await take(events, 5001)).length).toBe(5001);
    await events.return(undefined);
    expect(hub.listeners('run_a')).toBe(0);
  });

  it('cuts a client off when the bytes queued for it would pass maxQueuedBytes, and frees everything', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const cap = 64 * 1024;
    const { hub, response } = openStream({ maxQueuedBytes: cap });
    const text = 'y'.repeat(10_000);
    let published = 0;
    while (hub.listeners('run_a') > 0 && published < 100) {
      hub.publish('run_a', { event: 'model_delta', id: String(published++), data: { text } });
    }
    expect(published).toBeLessThan(10);
    expect(vi.getTimerCount()).toBe(0);
    // Errored, not closed: the queued bytes are dropped at once, and the runtime aborts the
    // response (closing the connection) instead of waiting for the client to read them.
    const read = await response
      .body!.getReader()
      .read()
      .catch((error: unknown) => error);
    expect(read).toBeInstanceOf(Error);
    expect((read as Error).message).toMatch(/left more than 65536 bytes unread/);
  });

  it('shares the encoded bytes of a message between its subscribers', async () => {
    const hub = createEventHub();
    const shared = [1, 2, 3].map(() => openStream({ hub }));
    const message: HubMessage = { event: 'model_delta', id: '1', data: { text: 'z' } };
    hub.publish('run_a', message);
    const chunks = await Promise.all(
      shared.map(async ({ response }) => {
        const reader = response.body!.getReader();
        await reader.read(); // retry
        await reader.read(); // initial state
        const { value } = await reader.read();
        await reader.cancel();
        return value!;
      }),
    );
    expect(new TextDecoder().decode(chunks[0])).toBe(formatSse(message));
    expect(chunks[1]).toBe(chunks[0]);
    expect(chunks[2]).toBe(chunks[0]);
  });

  it('removes a listener that an async hub hands over after the stream has ended', async () => {
    const inner = createEventHub();
    let resolve: () => void = () => {};
    const gate = new Promise<void>((done) => {
      resolve = done;
    });
    const hub: EventHub = {
      subscribe: async (runId, listener) => {
        await gate;
        return inner.subscribe(runId, listener);
      },
      publish: inner.publish,
      listeners: inner.listeners,
      close: inner.close,
    };
    const { response } = openStream({ hub });
    await response.body!.cancel();
    resolve();
    await gate;
    await new Promise((done) => setTimeout(done, 0));
    expect(inner.listeners('run_a')).toBe(0);
  });

  it('on a reconnect the hub cannot resume, sends the current state first, then only what comes after it', async () => {
    const inner = createEventHub();
    let resolve: () => void = () => {};
    const gate = new Promise<void>((done) => {
      resolve = done;
    });
    const hub: EventHub = {
      // An async hub that could not resume: it hands over what it has, then says so.
      subscribe: async (runId, listener) => {
        listener({ event: 'model_delta', id: '6', data: { text: 'before the state' } });
        await gate;
        listener({ event: 'model_delta', id: '8', data: { text: 'after it' } });
        return { ...(inner.subscribe(runId, listener) as { unsubscribe: () => void }), resumed: false };
      },
      publish: inner.publish,
      listeners: inner.listeners,
      close: inner.close,
    };
    const response = sseResponse(new Request('http://test.local/runs/run_a/events'), {
      hub,
      runId: 'run_a',
      initial: { event: 'state', id: '7', data: { runId: 'run_a' } },
      lastEventId: 3,
      heartbeatMs: 60_000,
      maxQueuedBytes: DEFAULT_MAX_QUEUED_BYTES,
    });
    resolve();
    const events = readSse(response.body!);
    const got = await take(events, 2);
    inner.publish('run_a', { event: 'model_delta', id: '9', data: { text: 'live' } });
    got.push(...(await take(events, 1)));
    await events.return(undefined);
    expect(got.map((event) => `${event.event}@${event.id}`)).toEqual([
      'state@7',
      'model_delta@8',
      'model_delta@9',
    ]);
  });

  it('writes one data line per message', () => {
    expect(formatSse({ event: 'state', id: '3', data: { text: 'a\nb' } })).toBe(
      'event: state\nid: 3\ndata: {"text":"a\\nb"}\n\n',
    );
  });
});
