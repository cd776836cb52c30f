/**
 * The event stream of the handler under hostile clients (DESIGN §13): HEAD requests, clients that
 * never read, clients that go away. Live subscribers are counted on the handler's hub.
 */
import { defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, createHandler, STATE_MESSAGES_MAX_CHARS } from '../src/http/public.js';
import { inventoryAgent, jsonRequest, listen, queuedBytes, readSse, send } from './http-fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

/** An agent that answers every message with a short text, for long conversations. */
function chattyAgent() {
  return defineAgent({
    name: 'chatty',
    instructions: 'Acknowledge.',
    model: scriptedModel(Array.from({ length: 200 }, (_, index) => `ok ${index}`)),
    tools: [],
  });
}

describe('the SSE route under hostile clients', () => {
  it('creates no subscription and no timer for HEAD requests', async () => {
    const hub = createEventHub();
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), eventHub: hub });
    const started = await send(handler, 'POST', '/runs', { input: 'hi' });
    const path = `/runs/${started.body.runId}/events`;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    for (let index = 0; index < 100; index++) {
      const head = await handler(jsonRequest('HEAD', path));
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    }
    expect(hub.listeners(started.body.runId)).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const get = await handler(jsonRequest('GET', path));
    expect(hub.listeners(started.body.runId)).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await get.body!.cancel();
    expect(hub.listeners(started.body.runId)).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const unknown = await handler(jsonRequest('HEAD', '/runs/run_unknown/events'));
    expect(unknown.status).toBe(404);
  });

  it('keeps what 50 clients that never read hold bounded, with state events that do not resend the transcript', async () => {
    const hub = createEventHub();
    const handler = createHandler({
      agent: chattyAgent(),
      store: memoryStore(),
      eventHub: hub,
      maxBodyBytes: 1024 * 1024,
    });
    const started = await send(handler, 'POST', '/runs', { input: 'start' });
    const runId = started.body.runId as string;
    const streams = await Promise.all(
      Array.from({ length: 50 }, () => handler(jsonRequest('GET', `/runs/${runId}/events`))),
    );
    expect(hub.listeners(runId)).toBe(50);
    const before = process.memoryUsage();
    const line = 'K562 passage 12, rack B2. '.repeat(1200); // ~30 KB per message
    for (let turn = 0; turn < 12; turn++) {
      const next = await send(handler, 'POST', `/runs/${runId}/messages`, { input: line });
      expect(next.status).toBe(200);
    }
    const after = process.memoryUsage();
    const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    const transcriptChars = JSON.stringify(
      (await send(handler, 'GET', `/runs/${runId}`)).body.messages,
    ).length;
    expect(transcriptChars).toBeGreaterThan(300_000);
    for (const stream of streams) {
      const queued = await queuedBytes(stream.body!);
      // A few states carry the transcript while it is under 64 Ki characters; none after that.
      expect(queued.bytes).toBeLessThan(256 * 1024);
    }
    expect(hub.listeners(runId)).toBe(0);
  });

  it('sends the transcript in state events only while it is short, and always its length', async () => {
    const handler = createHandler({ agent: chattyAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'start' });
    const runId = started.body.runId as string;
    const response = await handler(jsonRequest('GET', `/runs/${runId}/events`));
    const events = readSse(response.body!);
    const states: Record<string, unknown>[] = [];
    const nextState = async () => {
      for (;;) {
        const { value } = await events.next();
        if (value?.event === 'state') return value.data;
      }
    };
    states.push(await nextState());
    await send(handler, 'POST', `/runs/${runId}/messages`, { input: 'short' });
    states.push(await nextState());
    await send(handler, 'POST', `/runs/${runId}/messages`, { input: 'x'.repeat(STATE_MESSAGES_MAX_CHARS) });
    states.push(await nextState());
    await events.return(undefined);
    expect(states.map((state) => state.messageCount)).toEqual([2, 4, 6]);
    expect((states[1]!.messages as unknown[]).length).toBe(4);
    expect(states[2]!.messages).toBeUndefined();
    expect(states[2]).toMatchObject({ runId, status: 'completed', output: 'ok 2' });
    expect(states[2]!.snapshot).toBeUndefined();
  });

  it('releases the subscription and the timer when a client over real HTTP goes away', async () => {
    const hub = createEventHub();
    const server = await listen(
      createHandler({ agent: inventoryAgent(), store: memoryStore(), eventHub: hub, heartbeatMs: 20 }),
    );
    try {
      const started = await fetch(`${server.url}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'hi' }),
      }).then((response) => response.json());
      const abort = new AbortController();
      const response = await fetch(`${server.url}/runs/${started.runId}/events`, { signal: abort.signal });
      const events = readSse(response.body!);
      await events.next();
      expect(hub.listeners(started.runId)).toBe(1);
      abort.abort();
      await events.return(undefined).catch(() => {});
      const deadline = Date.now() + 5000;
      while (hub.listeners(started.runId) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(hub.listeners(started.runId)).toBe(0);
    } finally {
      await server.close();
    }
  });
});
