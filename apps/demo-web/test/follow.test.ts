/**
 * The page's event stream (`follow` in public/api.js, run here in Node, whose fetch and streams
 * are the browser's): a connection that drops is opened again with `Last-Event-ID`, so the events
 * of a turn played while it was down are replayed, in order, none twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type DemoServer, startDemoServer } from '../src/server.js';

// biome-ignore lint/suspicious/noExplicitAny: the page's plain JavaScript module.
type Message = { event: string; id?: number; data: any };

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  vi.unstubAllGlobals();
});

describe('follow', () => {
  it('reconnects with Last-Event-ID and gets the events it missed, then goes on live', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnkit-web-follow-'));
    const server: DemoServer = await startDemoServer({ port: 0, dataDir: dir, paceMs: 0, thinkMs: 0 });
    cleanups.push(
      () => server.close(),
      () => rm(dir, { recursive: true, force: true }),
    );
    const realFetch = globalThis.fetch;
    const post = async (path: string, body: unknown) =>
      (
        await realFetch(new URL(path, server.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();

    // The page's fetch: paths relative to the server; the first event stream is cut after its
    // first chunk (the run's state), as a dropped connection would be.
    const streams: Array<Record<string, string>> = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
      const response = await realFetch(new URL(path, server.url), init);
      if (!path.endsWith('/events')) return response;
      streams.push({ ...(init.headers as Record<string, string>) });
      if (streams.length > 1) return response;
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      const cut = new ReadableStream({
        start(controller) {
          controller.enqueue(value);
          setTimeout(() => {
            void reader.cancel();
            controller.error(new TypeError('network error'));
          }, 50);
        },
      });
      return new Response(cut, { status: response.status, headers: response.headers });
    });
    // @ts-expect-error: the page's plain JavaScript module has no types.
    const { follow } = await import('../public/api.js');

    const started = await post('/api/runs', { input: 'Thaw vials for tomorrow' });
    const heard: Message[] = [];
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    void follow(started.runId, (message: Message) => heard.push(message), stop.signal);
    await vi.waitFor(() => expect(streams).toHaveLength(1));
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    const [first] = heard;
    expect(first).toMatchObject({ event: 'state', data: { status: 'needs_input' } });

    // While the page is disconnected (it waits a second before reconnecting), a turn plays.
    const answered = await post(`/api/runs/${started.runId}/answer`, {
      id: started.pending[0].id,
      answers: { lines: ['K562'], medium: 'DMEM' },
    });
    expect(answered.status).toBe('needs_input');
    await vi.waitFor(
      () =>
        expect(heard.at(-1)).toMatchObject({
          event: 'state',
          data: { status: 'needs_input', version: answered.version },
        }),
      { timeout: 5_000 },
    );

    expect(streams[1]!['last-event-id']).toBe(String(first!.id));
    // Every event of the turn played meanwhile, once and in order (a state may come again: the
    // hub replays the one that followed the last event seen), then the new state.
    const events = heard.slice(1).filter((message) => message.event !== 'state');
    expect(events[0]).toMatchObject({ event: 'turn_started', id: first!.id! + 1 });
    expect(events.map((message) => message.id)).toEqual(events.map((_, index) => first!.id! + 1 + index));
    expect(events.map((message) => message.event)).toContain('interaction_resolved');
    expect(heard.at(-1)).toMatchObject({ event: 'state', id: events.at(-1)!.id });
  });
});
