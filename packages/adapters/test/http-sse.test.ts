import { describe, expect, it } from 'vitest';
import { createEventHub } from '../src/http/hub.js';
import { formatSse, sseResponse } from '../src/http/sse.js';
import { readSse, type SseEvent } from './http-fixtures.js';

function openStream(heartbeatMs = 60_000) {
  const hub = createEventHub();
  const abort = new AbortController();
  const request = new Request('http://test.local/runs/run_a/events', { signal: abort.signal });
  const response = sseResponse(request, {
    hub,
    runId: 'run_a',
    initial: { event: 'state', data: { runId: 'run_a' } },
    heartbeatMs,
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

describe('sseResponse', () => {
  it('sends the current state first, then the run’s live events, with heartbeats', async () => {
    const { hub, response } = openStream(20);
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

  it('unsubscribes when the client cancels the stream', async () => {
    const { hub, response } = openStream();
    expect(hub.listeners('run_a')).toBe(1);
    await response.body!.cancel();
    expect(hub.listeners('run_a')).toBe(0);
    hub.publish('run_a', { event: 'x', data: {} });
  });

  it('unsubscribes and ends the stream when the request is aborted', async () => {
    const { hub, abort, response } = openStream();
    abort.abort();
    expect(hub.listeners('run_a')).toBe(0);
    const events = await take(readSse(response.body!), 10);
    expect(events.map((event) => event.event)).toEqual(['state']);
  });

  it('closes the stream of a client that stops reading', async () => {
    const { hub, response } = openStream();
    for (let index = 0; index < 1100 && hub.listeners('run_a') > 0; index++) {
      hub.publish('run_a', { event: 'model_delta', data: { text: 'x' } });
    }
    expect(hub.listeners('run_a')).toBe(0);
    await response.body!.cancel();
  });

  it('writes one data line per message', () => {
    expect(formatSse({ event: 'state', id: '3', data: { text: 'a\nb' } })).toBe(
      'event: state\nid: 3\ndata: {"text":"a\\nb"}\n\n',
    );
  });
});
